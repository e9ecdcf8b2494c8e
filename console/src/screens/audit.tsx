import { Datagrid, DateField, DateTimeInput, FunctionField, SelectInput, TextField, TextInput, type RaRecord } from 'react-admin';
import { choices } from '../permissions';
import { ConsoleList } from '../ui';

const ACTIONS = [
  'tip',
  'deduct-balance',
  'set-balance',
  'leaderboard.give-prize',
  'withdrawal.approve',
  'withdrawal.reject',
  'withdrawal.retry',
  'user.create',
  'user.set-username',
  'user.update-profile',
  'user.ban',
  'user.unban',
  'user.disable-mfa',
  'role.add',
  'role.remove',
  'permission.add',
  'permission.remove',
  'limits.set-self-exclusion',
  'limits.lift-self-exclusion',
  'limits.set-bet-limit',
  'api-key.issue',
  'api-key.revoke',
  'config.update',
  'faq.create',
  'faq.update',
  'faq.delete',
  'leaderboard.update-schedule',
  'chat.delete-message',
  'chat.set-rate-limit',
];

/** GET /admin-audit: who did what to whom, filterable by admin, user, action and time. */
export const AuditList = () => (
  <ConsoleList
    filters={[
      <TextInput key="a" source="adminId" label="Admin id" alwaysOn />,
      <TextInput key="u" source="userId" label="User id" alwaysOn />,
      <SelectInput key="c" source="action" choices={choices(ACTIONS)} alwaysOn />,
      <DateTimeInput key="f" source="from" label="From" />,
      <DateTimeInput key="t" source="to" label="Before" />,
    ]}
    sort={{ field: 'createdAt', order: 'DESC' }}
    exporter={false}
    title="Admin audit log"
  >
    <Datagrid
      bulkActionButtons={false}
      expand={<FunctionField render={(r: RaRecord) => <pre>{JSON.stringify(r.details, null, 2)}</pre>} />}
      rowClick="expand"
    >
      <DateField source="createdAt" showTime sortable={false} />
      <TextField source="action" sortable={false} />
      <FunctionField
        label="Admin"
        render={(r: RaRecord) => `${(r.admin as { username?: string })?.username ?? ''} #${String(r.adminUserId)}`}
      />
      <FunctionField
        label="User"
        render={(r: RaRecord) =>
          r.targetUserId ? `${(r.targetUser as { username?: string } | null)?.username ?? ''} #${String(r.targetUserId)}` : '—'
        }
      />
      <TextField source="source" sortable={false} />
      <TextField source="position" sortable={false} />
    </Datagrid>
  </ConsoleList>
);
