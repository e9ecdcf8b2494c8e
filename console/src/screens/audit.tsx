import { Datagrid, DateTimeInput, FunctionField, SelectInput, TextField, TextInput, type RaRecord } from 'react-admin';
import { choices } from '../permissions';
import { ConsoleList, TimeField } from '../ui';
import { ADMIN_AUDIT_ACTIONS as ACTIONS } from '../../../src/shared/admin-actions';

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
      <TimeField source="createdAt" sortable={false} />
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
