import {
  Datagrid,
  DateTimeInput,
  FunctionField,
  NumberField,
  SelectInput,
  TextField,
  TextInput,
  useListContext,
  type RaRecord,
} from 'react-admin';
import { api, idempotencyKey } from '../api';
import { ALL_CURRENCIES, choices, CURRENCIES } from '../permissions';
import { useSettle } from '../refresh';
import { HeldDepositActions, HoldMark } from './held-deposits';
import { Allowed, CommandForm, ConsoleList, Money, MoneyField, pickedUser, TimeField, UserColumn, userFilter, UserInput } from '../ui';

/** Each list's filters without the person: the player page's tabs list their own player's rows. */
export const depositFilters = [
  <SelectInput key="s" source="status" choices={choices(['PENDING', 'CONFIRMED', 'COMPLETE', 'FAILED'])} alwaysOn />,
];
export const DepositGrid = ({ withUser = true }: { withUser?: boolean }) => (
  <Datagrid bulkActionButtons={false}>
    <TextField source="id" sortable={false} />
    {withUser ? <UserColumn label="User" idSource="userId" userSource="user" /> : null}
    <MoneyField source="amount" sortable={false} />
    <MoneyField source="usdAmount" label="USD" currency="USD" />
    <TextField source="status" sortable={false} />
    <FunctionField label="Hold" render={() => <HoldMark />} />
    <TimeField source="createdAt" />
    <TimeField source="confirmedAt" />
    <TimeField source="completedAt" />
    {withUser ? <FunctionField label="Actions" render={() => <HeldDepositActions />} /> : null}
  </Datagrid>
);

export const DepositList = () => (
  <ConsoleList filters={[...depositFilters, userFilter()]} sort={{ field: 'createdAt', order: 'DESC' }} exporter={false} title="Deposits">
    <DepositGrid />
  </ConsoleList>
);

export const betFilters = [
  <SelectInput
    key="s"
    source="status"
    choices={choices(['CREATED', 'SETTLED', 'ERROR', 'ROLLBACK'])}
    alwaysOn
    emptyText="SETTLED (default)"
  />,
  <TextInput key="g" source="gameSlug" label="Game slug" />,
  <TextInput key="gi" source="gameId" label="Game id" />,
  <TextInput key="m" source="minUsdAmount" label="USD stake at least" />,
  <DateTimeInput key="f" source="from" label="From" />,
  <DateTimeInput key="t" source="to" label="Before" />,
];
export const BetGrid = ({ withUser = true }: { withUser?: boolean }) => (
  <Datagrid bulkActionButtons={false}>
    <TextField source="id" sortable={false} />
    {withUser ? <UserColumn label="User" idSource="userId" userSource="user" /> : null}
    <FunctionField label="Game" render={(r: RaRecord) => (r.gameIdentity as { slug?: string })?.slug ?? r.gameId} />
    <MoneyField source="amount" label="Stake" sortable={false} />
    <MoneyField source="payout" sortable={false} />
    <MoneyField source="usdAmount" label="USD stake" currency="USD" />
    <MoneyField source="usdPayout" label="USD payout" currency="USD" />
    <TextField source="multiplier" />
    <TextField source="status" sortable={false} />
    <TimeField source="createdAt" />
  </Datagrid>
);

/** Bets with the nested filters of POST /bets (`where`: status, user, game, USD stake, time). */
export const BetList = () => (
  <ConsoleList
    filters={[betFilters[0]!, userFilter(), ...betFilters.slice(1)]}
    sort={{ field: 'createdAt', order: 'DESC' }}
    exporter={false}
    title="Bets"
  >
    <BetGrid />
  </ConsoleList>
);

const TYPES = [
  'DEPOSIT',
  'BET',
  'BET_PAYOUT',
  'ROLLBACK_BET',
  'BET_ERROR_REFUND',
  'WITHDRAW',
  'WITHDRAW_REFUND',
  'ADMIN_TIP',
  'ADMIN_DEDUCT',
  'BALANCE_SET',
  'LEADERBOARD_PRIZE',
  'AFFILIATE_CLAIM',
];

export const transactionFilters = [
  <SelectInput key="c" source="currencyId" choices={choices(ALL_CURRENCIES)} alwaysOn />,
  <SelectInput key="t" source="type" choices={choices(TYPES)} />,
  <DateTimeInput key="f" source="from" label="From" />,
  <DateTimeInput key="b" source="to" label="Before" />,
];
export const TransactionGrid = ({ withUser = true }: { withUser?: boolean }) => (
  <Datagrid bulkActionButtons={false}>
    <TextField source="id" sortable={false} />
    {withUser ? <UserColumn label="User" idSource="userId" nameSource="username" sortable={false} /> : null}
    <TextField source="type" sortable={false} />
    <MoneyField source="amount" sortable={false} />
    <MoneyField source="beforeBalance" label="Before" sortable={false} />
    <MoneyField source="afterBalance" label="After" sortable={false} />
    <UserColumn label="Admin" idSource="adminUserId" nameSource="adminUsername" sortable={false} />
    <TimeField source="createdAt" />
  </Datagrid>
);

/** A user's accounting transactions (SuperAdmin): every balance movement with the balance before and after. */
export const TransactionList = () => (
  <ConsoleList
    filters={[userFilter(), ...transactionFilters]}
    sort={{ field: 'createdAt', order: 'DESC' }}
    exporter={false}
    title="Accounting transactions"
  >
    <TransactionGrid />
  </ConsoleList>
);

const SendTip = () => {
  const { refetch } = useListContext();
  const settle = useSettle(refetch);
  return (
    <Allowed permission="admin-tips.tip">
      <CommandForm
        title="Send a tip"
        label="Send tip"
        onDone={settle}
        defaultValues={{ currencyId: 'DBC', notes: '' }}
        confirm={(v) => (
          <>
            Tip <Money exact amount={String(v.amount)} currency={String(v.currencyId)} /> to {pickedUser(v.recipientUserId)}?
          </>
        )}
        submit={(v) =>
          api(
            'POST',
            '/admin-tips',
            { recipientUserId: Number(v.recipientUserId), amount: v.amount, currencyId: v.currencyId, notes: v.notes ?? '' },
            { 'idempotency-key': idempotencyKey() },
          )
        }
      >
        <UserInput source="recipientUserId" label="Recipient (name, e-mail or id)" />
        <TextInput source="amount" label="Amount" />
        <SelectInput source="currencyId" label="Currency" choices={choices(CURRENCIES)} />
        <TextInput source="notes" label="Notes" />
      </CommandForm>
    </Allowed>
  );
};

export const tipFilters = [<TextInput key="q" source="q" label="Search notes or names" alwaysOn />];
export const TipGrid = () => (
  <Datagrid bulkActionButtons={false}>
    <NumberField source="id" />
    <UserColumn label="From" idSource="sender.id" userSource="sender" sortable={false} />
    <UserColumn label="To" idSource="recipient.id" userSource="recipient" sortable={false} />
    <MoneyField source="amount" />
    <TextField source="type" sortable={false} />
    <TextField source="tag" sortable={false} />
    <TextField source="notes" sortable={false} />
    <TimeField source="createdAt" />
  </Datagrid>
);

export const TipList = () => (
  <ConsoleList
    filters={[...tipFilters, userFilter('user', 'Recipient (name, e-mail or id)'), userFilter('admin', 'Sender (name, e-mail or id)')]}
    sort={{ field: 'createdAt', order: 'DESC' }}
    exporter={false}
    title="Admin tips"
    aside={<SendTip />}
  >
    <TipGrid />
  </ConsoleList>
);
