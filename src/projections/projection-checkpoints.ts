import type pg from 'pg';
import { parsePosition, type Position } from '../infra/event-store/event-store.port.js';
import type { Projection, Sql } from './projection.js';
import { applyStatements } from './apply-statements.js';

/** Where each read model stands (its checkpoint row), and the recount a bulk replay leaves for its end. */
export type Checkpoint = Readonly<{ version: number; position: Position; rederive?: boolean }>;

export const readCheckpoints = async (client: pg.ClientBase, names?: readonly string[]): Promise<Map<string, Checkpoint>> => {
  const { rows } = names
    ? await client.query<{ name: string; version: number; position: string }>(
        'SELECT name, version, position FROM projection_checkpoints WHERE name = ANY($1::text[])',
        [names],
      )
    : await client.query<{ name: string; version: number; position: string }>('SELECT name, version, position FROM projection_checkpoints');
  return new Map(rows.map((r) => [r.name, { version: r.version, position: parsePosition(r.position) }]));
};

/** What a bulk replay runs of a statement: none of its counts (recounted at the end), its rows all the same. */
export const underived = (st: Sql): Sql[] => (st.derived ? (st.underived ? [st.underived] : []) : [st]);

/** The read model's summaries recounted from its rows, and its replay mark cleared (under its batch lock). */
export const rederiveSql = (p: Projection): Sql[] => [
  ...(p.rederive ?? []),
  { text: 'DELETE FROM projection_rederive_pending WHERE name = $1::text', values: [p.name] },
];

export const rederive = async (client: pg.ClientBase, p: Projection): Promise<void> => {
  await applyStatements(client, rederiveSql(p));
};

/** A rebuild reset a checkpoint behind what this run wrote: restart. */
export class CheckpointBehind extends Error {
  override readonly name = 'CheckpointBehind';
}
