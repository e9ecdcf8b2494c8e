import { left, right, type Either } from 'fp-ts/lib/Either.js';

/**
 * Anti-money-laundering due-diligence flags of one player (docs/compliance.md): raised by the ledger when linked
 * deposits and withdrawals reach the threshold, or when a withdrawal over it is held for review; assigned and cleared
 * with a note by the back office; never deleted.
 */
export const amlStream = (userId: number): string => `aml-${userId}`;

export type AmlFlagKind = 'linked-transactions' | 'withdrawal-review';
export type AmlFlag = Readonly<{
  id: string;
  kind: AmlFlagKind;
  /** USD decimals: the linked total that reached the threshold (with the transaction that raised it), and the threshold. */
  linkedUsd: string;
  thresholdUsd: string;
  windowHours: number;
  withdrawalId: string | null;
  status: 'OPEN' | 'CLEARED';
  assigneeUserId: number | null;
  note: string | null;
  raisedAt: string;
  clearedAt: string | null;
  clearedByUserId: number | null;
}>;
export type AmlState = Readonly<{ userId: number; flags: Readonly<Record<string, AmlFlag>> }>;
export const initialAmlState = (userId: number): AmlState => ({ userId, flags: {} });

type At = Readonly<{ at: string }>;
export type AmlEvent =
  | Readonly<{
      type: 'AmlFlagRaised';
      data: Readonly<{ flagId: string; kind: AmlFlagKind; linkedUsd: string; thresholdUsd: string; windowHours: number }> &
        Readonly<{ withdrawalId: string | null }> &
        At;
    }>
  | Readonly<{ type: 'AmlFlagAssigned'; data: Readonly<{ flagId: string; assigneeUserId: number; adminUserId: number }> & At }>
  | Readonly<{ type: 'AmlFlagCleared'; data: Readonly<{ flagId: string; note: string; adminUserId: number }> & At }>;

export type AmlCommand =
  | Readonly<{ type: 'RaiseAmlFlag'; data: Omit<Extract<AmlEvent, { type: 'AmlFlagRaised' }>['data'], 'at'> }>
  | Readonly<{ type: 'AssignAmlFlag'; data: Readonly<{ flagId: string; assigneeUserId: number }> }>
  | Readonly<{ type: 'ClearAmlFlag'; data: Readonly<{ flagId: string; note: string }> }>;

export type AmlError =
  | Readonly<{ _tag: 'AmlFlagNotFound'; flagId: string }>
  | Readonly<{ _tag: 'AmlFlagCleared'; flagId: string }>
  | Readonly<{ _tag: 'AmlNoteRequired' }>;

export type AmlMeta = Readonly<{ now: Date; adminUserId: number | null }>;

const openFlag = (state: AmlState, flagId: string): Either<AmlError, AmlFlag> => {
  const flag = state.flags[flagId];
  if (!flag) return left({ _tag: 'AmlFlagNotFound', flagId });
  return flag.status === 'OPEN' ? right(flag) : left({ _tag: 'AmlFlagCleared', flagId });
};

/** A linked-transactions flag is raised only while none is open: one review at a time, a new one after it is cleared. */
export const decideAml = (command: AmlCommand, state: AmlState, meta: AmlMeta): Either<AmlError, readonly AmlEvent[]> => {
  const at = meta.now.toISOString();
  switch (command.type) {
    case 'RaiseAmlFlag': {
      const d = command.data;
      if (state.flags[d.flagId]) return right([]);
      const open = Object.values(state.flags).some((f) => f.status === 'OPEN' && f.kind === d.kind && f.withdrawalId === d.withdrawalId);
      return open ? right([]) : right([{ type: 'AmlFlagRaised', data: { ...d, at } }]);
    }
    case 'AssignAmlFlag': {
      const flag = openFlag(state, command.data.flagId);
      if (flag._tag === 'Left') return flag;
      if (meta.adminUserId === null) throw new Error('invariant: only an admin assigns a flag');
      return right([{ type: 'AmlFlagAssigned', data: { ...command.data, adminUserId: meta.adminUserId, at } }]);
    }
    case 'ClearAmlFlag': {
      const flag = openFlag(state, command.data.flagId);
      if (flag._tag === 'Left') return flag;
      if (command.data.note.trim() === '') return left({ _tag: 'AmlNoteRequired' });
      if (meta.adminUserId === null) throw new Error('invariant: only an admin clears a flag');
      return right([{ type: 'AmlFlagCleared', data: { ...command.data, adminUserId: meta.adminUserId, at } }]);
    }
    default: {
      const never: never = command;
      return never;
    }
  }
};

export const evolveAml = (state: AmlState, event: AmlEvent): AmlState => {
  const d = event.data;
  const flag = state.flags[d.flagId];
  switch (event.type) {
    case 'AmlFlagRaised': {
      const r = event.data;
      const raised: AmlFlag = {
        id: r.flagId,
        kind: r.kind,
        linkedUsd: r.linkedUsd,
        thresholdUsd: r.thresholdUsd,
        windowHours: r.windowHours,
        withdrawalId: r.withdrawalId,
        status: 'OPEN',
        assigneeUserId: null,
        note: null,
        raisedAt: r.at,
        clearedAt: null,
        clearedByUserId: null,
      };
      return { ...state, flags: { ...state.flags, [r.flagId]: raised } };
    }
    case 'AmlFlagAssigned':
      return flag ? { ...state, flags: { ...state.flags, [d.flagId]: { ...flag, assigneeUserId: event.data.assigneeUserId } } } : state;
    case 'AmlFlagCleared': {
      if (!flag) return state;
      const cleared: AmlFlag = {
        ...flag,
        status: 'CLEARED',
        note: event.data.note,
        clearedAt: d.at,
        clearedByUserId: event.data.adminUserId,
      };
      return { ...state, flags: { ...state.flags, [d.flagId]: cleared } };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
};
