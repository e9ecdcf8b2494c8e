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
import { Allowed, CommandForm, ConsoleList, Money, MoneyField, TimeField } from '../ui';

const userName = (r: RaRecord) => `${(r.user as { username?: string } | null)?.username ?? ''} #${String(r.userId ?? '')}`;

export const DepositList = () => (
  <ConsoleList
    filters={[
      <SelectInput key="s" source="status" choices={choices(['PENDING', 'CONFIRMED', 'COMPLETE', 'FAILED'])} alwaysOn />,
      <TextInput key="u" source="userId" label="User id" alwaysOn />,
    ]}
    sort={{ field: 'createdAt', order: 'DESC' }}
    exporter={false}
    title="Deposits"
  >
    <Datagrid bulkActionButtons={false}>
      <TextField source="id" sortable={false} />
      <FunctionField label="User" render={userName} />
      <MoneyField source="amount" sortable={false} />
      <MoneyField source="usdAmount" label="USD" currency="USD" />
      <TextField source="status" sortable={false} />
      <TimeField source="createdAt" />
      <TimeField source="confirmedAt" />
      <TimeField source="completedAt" />
    </Datagrid>
  </ConsoleList>
);

/** Bets with the nested filters of POST /bets (`where`: status, user, game, USD stake, time). */
export const BetList = () => (
  <ConsoleList
    filters={[
      <SelectInput
        key="s"
        source="status"
        choices={choices(['CREATED', 'SETTLED', 'ERROR', 'ROLLBACK'])}
        alwaysOn
        emptyText="SETTLED (default)"
      />,
      <TextInput key="u" source="userId" label="User id" alwaysOn />,
      <TextInput key="g" source="gameSlug" label="Game slug" />,
      <TextInput key="gi" source="gameId" label="Game id" />,
      <TextInput key="m" source="minUsdAmount" label="USD stake at least" />,
      <DateTimeInput key="f" source="from" label="From" />,
      <DateTimeInput key="t" source="to" label="Before" />,
    ]}
    sort={{ field: 'createdAt', order: 'DESC' }}
    exporter={false}
    title="Bets"
  >
    <Datagrid bulkActionButtons={false}>
      <TextField source="id" sortable={false} />
      <FunctionField label="User" render={userName} />
      <FunctionField label="Game" render={(r: RaRecord) => (r.gameIdentity as { slug?: string })?.slug ?? r.gameId} />
      <MoneyField source="amount" label="Stake" sortable={false} />
      <MoneyField source="payout" sortable={false} />
      <MoneyField source="usdAmount" label="USD stake" currency="USD" />
      <MoneyField source="usdPayout" label="USD payout" currency="USD" />
      <TextField source="multiplier" />
      <TextField source="status" sortable={false} />
      <TimeField source="createdAt" />
    </Datagrid>
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

/** A user's accounting transactions (SuperAdmin): every balance movement with the balance before and after. */
export const TransactionList = () => (
  <ConsoleList
    filters={[
      <TextInput key="u" source="userId" label="User id" alwaysOn />,
      <SelectInput key="c" source="currencyId" choices={choices(ALL_CURRENCIES)} alwaysOn />,
      <SelectInput key="t" source="type" choices={choices(TYPES)} />,
      <DateTimeInput key="f" source="from" label="From" />,
      <DateTimeInput key="b" source="to" label="Before" />,
    ]}
    sort={{ field: 'createdAt', order: 'DESC' }}
    exporter={false}
    title="Accounting transactions"
  >
    <Datagrid bulkActionButtons={false}>
      <TextField source="id" sortable={false} />
      <NumberField source="userId" sortable={false} />
      <TextField source="type" sortable={false} />
      <MoneyField source="amount" sortable={false} />
      <MoneyField source="beforeBalance" label="Before" sortable={false} />
      <MoneyField source="afterBalance" label="After" sortable={false} />
      <NumberField source="adminUserId" label="Admin" sortable={false} />
      <TimeField source="createdAt" />
    </Datagrid>
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
            Tip <Money exact amount={String(v.amount)} currency={String(v.currencyId)} /> to user #{String(v.recipientUserId)}?
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
        <TextInput source="recipientUserId" label="Recipient user id" />
        <TextInput source="amount" label="Amount" />
        <SelectInput source="currencyId" label="Currency" choices={choices(CURRENCIES)} />
        <TextInput source="notes" label="Notes" />
      </CommandForm>
    </Allowed>
  );
};

export const TipList = () => (
  <ConsoleList
    filters={[
      <TextInput key="q" source="q" label="Search notes or names" alwaysOn />,
      <TextInput key="r" source="recipientUserId" label="Recipient id" />,
      <TextInput key="s" source="senderUserId" label="Sender id" />,
    ]}
    sort={{ field: 'createdAt', order: 'DESC' }}
    exporter={false}
    title="Admin tips"
    aside={<SendTip />}
  >
    <Datagrid bulkActionButtons={false}>
      <NumberField source="id" />
      <FunctionField label="From" render={(r: RaRecord) => (r.sender as { username?: string } | null)?.username ?? ''} />
      <FunctionField label="To" render={(r: RaRecord) => (r.recipient as { username?: string } | null)?.username ?? ''} />
      <MoneyField source="amount" />
      <TextField source="type" sortable={false} />
      <TextField source="notes" sortable={false} />
      <TimeField source="createdAt" />
    </Datagrid>
  </ConsoleList>
);
