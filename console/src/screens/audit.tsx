import { Datagrid, DateTimeInput, FunctionField, SelectInput, TextField, type RaRecord } from 'react-admin';
import { choices } from '../permissions';
import { ConsoleList, TimeField, UserColumn, userFilter } from '../ui';
import { ADMIN_AUDIT_ACTIONS as ACTIONS } from '../../../src/shared/admin-actions';

/** GET /admin-audit: who did what to whom, filterable by admin, user, action and time. */
export const auditFilters = [
  <SelectInput key="c" source="action" choices={choices(ACTIONS)} alwaysOn />,
  <DateTimeInput key="f" source="from" label="From" />,
  <DateTimeInput key="t" source="to" label="Before" />,
];
export const AuditGrid = () => (
  <Datagrid
    bulkActionButtons={false}
    expand={<FunctionField render={(r: RaRecord) => <pre>{JSON.stringify(r.details, null, 2)}</pre>} />}
    rowClick="expand"
  >
    <TimeField source="createdAt" sortable={false} />
    <TextField source="action" sortable={false} />
    <UserColumn label="Admin" idSource="adminUserId" userSource="admin" />
    <UserColumn label="User" idSource="targetUserId" userSource="targetUser" />
    <TextField source="source" sortable={false} />
    <TextField source="position" sortable={false} />
  </Datagrid>
);

export const AuditList = () => (
  <ConsoleList
    filters={[userFilter('admin', 'Admin (name, e-mail or id)'), userFilter(), ...auditFilters]}
    sort={{ field: 'createdAt', order: 'DESC' }}
    exporter={false}
    title="Admin audit log"
  >
    <AuditGrid />
  </ConsoleList>
);
