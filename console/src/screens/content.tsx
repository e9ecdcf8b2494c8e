import { Box } from '@mui/material';
import { Datagrid, NumberField, NumberInput, TextField, TextInput, useListContext, useRecordContext } from 'react-admin';
import { api } from '../api';
import { can } from '../authProvider';
import { useSettle } from '../refresh';
import { Allowed, CommandButton, CommandForm, ConsoleList, useSession } from '../ui';

const FaqActions = () => {
  const faq = useRecordContext();
  const { refetch } = useListContext();
  const settle = useSettle(refetch);
  const me = useSession();
  if (!faq || !can(me, 'faq.edit')) return null;
  return (
    <Box onClick={(e) => e.stopPropagation()}>
      <CommandForm
        title={`Edit FAQ ${String(faq.id)}`}
        label="Save FAQ"
        onDone={settle}
        defaultValues={{ title: faq.title, text: faq.text, order: faq.order }}
        submit={(v) => api('PUT', '/faq', { id: faq.id, title: v.title, text: v.text, order: Number(v.order) })}
      >
        <TextInput source="title" fullWidth />
        <TextInput source="text" fullWidth multiline />
        <NumberInput source="order" label="Position (1 = first)" />
      </CommandForm>
      <CommandButton
        label="Delete FAQ"
        color="error"
        confirm={<>Delete “{String(faq.title)}”?</>}
        done={settle}
        run={() => api('DELETE', '/faq', { id: faq.id })}
      />
    </Box>
  );
};

const NewFaq = () => {
  const { refetch } = useListContext();
  const settle = useSettle(refetch);
  return (
    <Allowed permission="faq.edit">
      <CommandForm title="New FAQ" label="Create FAQ" onDone={settle} submit={(v) => api('POST', '/faq', { title: v.title, text: v.text })}>
        <TextInput source="title" fullWidth />
        <TextInput source="text" fullWidth multiline />
      </CommandForm>
    </Allowed>
  );
};

/** FAQ: create, edit, reorder (a new position shifts the others), delete. */
export const FaqList = () => (
  <ConsoleList pagination={false} exporter={false} title="FAQ" aside={<NewFaq />} sort={{ field: 'order', order: 'ASC' }}>
    <Datagrid bulkActionButtons={false} expand={<FaqActions />} rowClick="expand">
      <NumberField source="order" sortable={false} />
      <TextField source="title" sortable={false} />
      <TextField source="text" sortable={false} />
    </Datagrid>
  </ConsoleList>
);
