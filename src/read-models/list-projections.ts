import type { WalletEvent } from '../domain/wallet/wallet.events.js';
import { counted, recount, type CountedList } from './list-counts/list-counts.js';
import { EntityFold, patchRows, walletRecords, type Projection, type Row, type WalletRecord } from '../projections/projection.js';

type WalletEventType = WalletEvent['type'];
type DataOf<T extends WalletEventType> = Extract<WalletEvent, { type: T }>['data'];
type RowsOf<T extends WalletEventType> = { readonly [K in T]: (data: DataOf<K>, record: WalletRecord) => Row };
type AnyRows = Readonly<Partial<Record<string, (data: unknown, record: WalletRecord) => Row>>>;

type ListProjection = Readonly<{ name: string; version: number; list: CountedList }>;

/** A list of entities (bets, deposits, withdrawals): `create` events insert rows, `patch` events change `patchable` columns. */
export const entityProjection = <C extends WalletEventType, P extends WalletEventType>(
  spec: ListProjection &
    Readonly<{ patchable: readonly string[]; id: (data: DataOf<C | P>) => string; create: RowsOf<C>; patch: RowsOf<P> }>,
): Projection => {
  // Looked up by the event's type: each function is called with the data of the type it is keyed by.
  const creates = spec.create as unknown as AnyRows;
  const patches = spec.patch as unknown as AnyRows;
  const handles = [...Object.keys(creates), ...Object.keys(patches)];
  const { table } = spec.list;
  return {
    name: spec.name,
    version: spec.version,
    handles,
    tables: [table, spec.list.counts],
    rederive: recount(spec.list),
    project(events) {
      const fold = new EntityFold();
      for (const record of walletRecords(events, handles)) {
        const { type, data } = record.event;
        const id = spec.id(data as DataOf<C | P>);
        const create = creates[type];
        if (create) fold.create(id, create(data, record));
        else fold.patch(id, patches[type]!(data, record));
      }
      const patched = fold.patches('id');
      return counted(spec.list, fold.inserts(), patched, patchRows(table, 'id', spec.patchable, patched));
    },
  };
};

/** A list whose rows never change (admin tips, the accounting log): at most one row per event, counted as inserted. */
export const rowProjection = (
  spec: ListProjection & Readonly<{ handles: readonly string[]; row: (record: WalletRecord) => Row | undefined }>,
): Projection => ({
  name: spec.name,
  version: spec.version,
  handles: spec.handles,
  tables: [spec.list.table, spec.list.counts],
  rederive: recount(spec.list),
  project(events) {
    const rows = walletRecords(events, spec.handles).flatMap<Row>((record) => spec.row(record) ?? []);
    return counted(spec.list, rows, [], []);
  },
});
