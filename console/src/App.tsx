import { lazy } from 'react';
import { Route } from 'react-router-dom';
import {
  Admin,
  AppBar,
  CustomRoutes,
  defaultTheme,
  Layout,
  Logout,
  Menu,
  Resource,
  useGetIdentity,
  UserMenu,
  type LayoutProps,
  type RaThemeOptions,
} from 'react-admin';
import { authProvider, can } from './authProvider';
import { dataProvider } from './dataProvider';
import { LoginPage } from './Login';
import { useSession } from './ui';

// Each screen is its own chunk: the first load carries react-admin and the sign-in page only.
const screen = <K extends string>(load: () => Promise<Record<K, React.ComponentType>>, name: K) =>
  lazy(() => load().then((m) => ({ default: m[name] })));
const Dashboard = screen(() => import('./screens/dashboard'), 'Dashboard');
const WithdrawalList = screen(() => import('./screens/withdrawals'), 'WithdrawalList');
const UserList = screen(() => import('./screens/users'), 'UserList');
const UserShow = screen(() => import('./screens/player'), 'UserShow');
const DepositList = screen(() => import('./screens/money'), 'DepositList');
const BetList = screen(() => import('./screens/money'), 'BetList');
const TransactionList = screen(() => import('./screens/money'), 'TransactionList');
const TipList = screen(() => import('./screens/money'), 'TipList');
const LedgerPage = screen(() => import('./screens/ledger'), 'LedgerPage');
const PeriodsPage = screen(() => import('./screens/periods'), 'PeriodsPage');
const PeriodReport = screen(() => import('./screens/periods'), 'PeriodReport');
const FinancePage = screen(() => import('./screens/finance'), 'FinancePage');
const StatementPage = screen(() => import('./screens/finance'), 'StatementPage');
const ReconciliationPage = screen(() => import('./screens/reconciliation'), 'ReconciliationPage');
const ReconciliationRun = screen(() => import('./screens/reconciliation-run'), 'ReconciliationRun');
const LeaderboardList = screen(() => import('./screens/leaderboards'), 'LeaderboardList');
const LeaderboardShow = screen(() => import('./screens/leaderboards'), 'LeaderboardShow');
const ScheduleList = screen(() => import('./screens/leaderboards'), 'ScheduleList');
const FaqList = screen(() => import('./screens/content'), 'FaqList');
const ConfigPage = screen(() => import('./screens/config'), 'ConfigPage');
const ChatPage = screen(() => import('./screens/chat'), 'ChatPage');
const AuditList = screen(() => import('./screens/audit'), 'AuditList');
const NewAdminPage = screen(() => import('./screens/new-admin'), 'NewAdminPage');
const ProfilePage = screen(() => import('./screens/profile'), 'ProfilePage');
const AmlPage = screen(() => import('./screens/aml'), 'AmlPage');
const MonitorsPage = screen(() => import('./screens/monitors'), 'MonitorsPage');

/** Which permission each list needs: the menu shows only what the signed-in admin may open. */
const NEEDS: Readonly<Record<string, string>> = {
  withdrawals: 'withdrawals.view',
  users: 'user.view',
  deposits: 'deposits.view',
  bets: 'user.bets.view',
  transactions: 'superadmin',
  'admin-tips': 'admin-tips.view',
  leaderboards: 'leaderboard.view',
  schedules: 'leaderboard.view',
  'admin-audit': 'admin-users.view-admin-audit',
};
const LABELS: Readonly<Record<string, string>> = {
  withdrawals: 'Withdrawals',
  users: 'Users',
  deposits: 'Deposits',
  bets: 'Bets',
  transactions: 'Accounting',
  'admin-tips': 'Admin tips',
  leaderboards: 'Leaderboards',
  schedules: 'Leaderboard schedules',
  faq: 'FAQ',
  'admin-audit': 'Audit log',
};

/** Any one of them opens the finance reports (each report needs its own). */
const FINANCE_PERMISSIONS = ['balance.view', 'transaction.view', 'deposits.view', 'admin-tips.view'];

const ConsoleMenu = () => {
  const me = useSession();
  return (
    <Menu>
      <Menu.DashboardItem />
      {Object.entries(LABELS)
        .filter(([name]) => !NEEDS[name] || can(me, NEEDS[name]))
        .map(([name, label]) => (
          <Menu.Item key={name} to={`/${name}`} primaryText={label} />
        ))}
      {can(me, 'balance.view') || can(me, 'transaction.view') ? <Menu.Item to="/ledger" primaryText="Ledger" /> : null}
      {can(me, 'balance.view') ? <Menu.Item to="/periods" primaryText="Periods" /> : null}
      {FINANCE_PERMISSIONS.some((p) => can(me, p)) ? <Menu.Item to="/finance" primaryText="Finance reports" /> : null}
      {can(me, 'reconciliation.view') ? <Menu.Item to="/reconciliation" primaryText="Reconciliation" /> : null}
      {can(me, 'superadmin') ? <Menu.Item to="/config" primaryText="Site configuration" /> : null}
      {can(me, 'superadmin') ? <Menu.Item to="/monitors" primaryText="Monitors" /> : null}
      {can(me, 'superadmin') ? <Menu.Item to="/admins/new" primaryText="New admin" /> : null}
      {can(me, 'chat.admin-action') ? <Menu.Item to="/chat" primaryText="Chat moderation" /> : null}
      {can(me, 'kyc.view') ? <Menu.Item to="/aml" primaryText="AML flags" /> : null}
      <Menu.Item to="/profile" primaryText="My account" />
    </Menu>
  );
};
// The user menu is named by the admin's name, the text it shows (axe: label-content-name-mismatch).
const ConsoleUserMenu = () => {
  const { identity } = useGetIdentity();
  return (
    <UserMenu label={String(identity?.fullName ?? 'Account')}>
      <Logout />
    </UserMenu>
  );
};
const ConsoleAppBar = () => <AppBar userMenu={<ConsoleUserMenu />} />;
const ConsoleLayout = (props: LayoutProps) => <Layout {...props} menu={ConsoleMenu} appBar={ConsoleAppBar} />;

/** Darker blues than the default theme: white app-bar text and buttons keep a contrast above 4.5:1 (WCAG AA). */
const theme: RaThemeOptions = {
  ...defaultTheme,
  palette: { primary: { main: '#1565c0' }, secondary: { main: '#0d47a1' } },
  // The app bar's loading spinner gets a name (axe: aria-progressbar-name).
  components: { ...defaultTheme.components, MuiCircularProgress: { defaultProps: { 'aria-label': 'Loading' } } },
};

export const App = () => (
  <Admin
    title="casino-ledger console"
    authProvider={authProvider}
    dataProvider={dataProvider}
    loginPage={LoginPage}
    dashboard={Dashboard}
    layout={ConsoleLayout}
    theme={theme}
    requireAuth
    disableTelemetry
  >
    {/* Every screen is routed (a typed URL shows the API's 403 cleanly); the menu hides what the admin may not open. */}
    <Resource name="withdrawals" list={WithdrawalList} />
    <Resource name="users" list={UserList} show={UserShow} recordRepresentation="username" />
    <Resource name="deposits" list={DepositList} />
    <Resource name="bets" list={BetList} />
    <Resource name="transactions" list={TransactionList} />
    <Resource name="admin-tips" list={TipList} />
    <Resource name="leaderboards" list={LeaderboardList} show={LeaderboardShow} />
    <Resource name="schedules" list={ScheduleList} />
    <Resource name="faq" list={FaqList} />
    <Resource name="admin-audit" list={AuditList} />
    <CustomRoutes>
      <Route path="/ledger" element={<LedgerPage />} />
      <Route path="/periods" element={<PeriodsPage />} />
      <Route path="/periods/:period" element={<PeriodReport />} />
      <Route path="/finance" element={<FinancePage />} />
      <Route path="/finance/statement/:userId" element={<StatementPage />} />
      <Route path="/reconciliation" element={<ReconciliationPage />} />
      <Route path="/reconciliation/:id" element={<ReconciliationRun />} />
      <Route path="/config" element={<ConfigPage />} />
      <Route path="/chat" element={<ChatPage />} />
      <Route path="/profile" element={<ProfilePage />} />
      <Route path="/admins/new" element={<NewAdminPage />} />
      <Route path="/aml" element={<AmlPage />} />
      <Route path="/monitors" element={<MonitorsPage />} />
    </CustomRoutes>
  </Admin>
);
