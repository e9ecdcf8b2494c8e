import { transfer } from '../ledger/posting.js';
import type { CompleteDeposit, ConfirmDeposit, FailDeposit, ReleaseDeposit, RequestDeposit, ReturnDeposit } from './wallet.commands.js';
import {
  accept,
  alreadyDone,
  amountsOf,
  movement,
  mustBeValidAmounts,
  reject,
  repeatOrConflict,
  type DecideContext,
  type Decision,
} from './wallet.decide.shared.js';
import type { WalletError } from './wallet.errors.js';
import type { HeldDepositSettlement } from './wallet.events.js';
import { depositExternalKey, type DepositEntry } from './wallet.state.js';

/** Records a PENDING deposit; a repeat of the same providerId + externalId with the same amount is a no-op. */
export const requestDeposit = (ctx: DecideContext, { data }: RequestDeposit): Decision => {
  const invalid = mustBeValidAmounts(data);
  if (invalid) return reject(invalid);

  const key = depositExternalKey(data.providerId, data.externalId);
  const existingId = ctx.state.depositsByExternalKey.get(key);
  const existing = existingId === undefined ? undefined : ctx.state.deposits.get(existingId);
  if (existing) {
    const same = existing.amount === data.amount && existing.currencyId === data.currencyId;
    return repeatOrConflict(same, key, `deposit ${key} was already requested with a different amount or currency`);
  }
  if (ctx.state.deposits.has(data.depositId)) {
    return reject({ _tag: 'IdempotencyConflict', key: data.depositId, message: `deposit id ${data.depositId} is already used` });
  }
  return accept({
    type: 'DepositRequested',
    data: {
      depositId: data.depositId,
      externalId: data.externalId,
      providerId: data.providerId,
      networkId: data.networkId,
      currencyId: data.currencyId,
      ...amountsOf(data),
      txHash: data.txHash,
      payAddress: data.payAddress,
      payMemo: data.payMemo,
      ...(data.overLimit ? { overLimit: true } : {}),
      ...ctx.times,
    },
  });
};

type Found = Readonly<{ deposit: DepositEntry }> | Readonly<{ error: WalletError }>;
const findDeposit = (ctx: DecideContext, depositId: string): Found => {
  const deposit = ctx.state.deposits.get(depositId);
  return deposit ? { deposit } : { error: { _tag: 'DepositNotFound', depositId } };
};
const invalidState = (deposit: DepositEntry, action: string): Decision =>
  reject({ _tag: 'DepositInvalidState', depositId: deposit.id, status: deposit.status, action });

/** PENDING -> CONFIRMED; confirming a CONFIRMED deposit again is a no-op. */
export const confirmDeposit = (ctx: DecideContext, { data }: ConfirmDeposit): Decision => {
  const found = findDeposit(ctx, data.depositId);
  if ('error' in found) return reject(found.error);
  const { deposit } = found;
  if (deposit.status === 'CONFIRMED') return alreadyDone;
  if (deposit.status !== 'PENDING') return invalidState(deposit, 'confirm');
  return accept({ type: 'DepositConfirmed', data: { depositId: deposit.id, txHash: data.txHash ?? deposit.txHash, ...ctx.times } });
};

/**
 * PENDING or CONFIRMED -> COMPLETE, crediting once (house:deposits -> user); providers often skip the confirmation. A
 * deposit recorded past the player's deposit limit is credited to house:deposits-held instead (`held`): the user's
 * playable balance does not move until the back office releases it (docs/compliance.md).
 */
export const completeDeposit = (ctx: DecideContext, { data }: CompleteDeposit): Decision => {
  const found = findDeposit(ctx, data.depositId);
  if ('error' in found) return reject(found.error);
  const { deposit } = found;
  if (deposit.status === 'COMPLETE') return alreadyDone;
  if (deposit.status !== 'PENDING' && deposit.status !== 'CONFIRMED') return invalidState(deposit, 'complete');
  const held = deposit.overLimit === true;
  const postings = transfer('house:deposits', held ? 'house:deposits-held' : ctx.user, deposit.currencyId, deposit.amount);
  return accept({
    type: 'DepositCompleted',
    data: {
      ...movement(ctx, deposit.currencyId, `dep_${deposit.id}`, postings),
      depositId: deposit.id,
      ...(held ? { held: true } : {}),
      ...amountsOf(deposit),
      txHash: data.txHash ?? deposit.txHash,
      ...ctx.times,
    },
  });
};

/** PENDING or CONFIRMED -> FAILED; failing a FAILED deposit again is a no-op. */
export const failDeposit = (ctx: DecideContext, { data }: FailDeposit): Decision => {
  const found = findDeposit(ctx, data.depositId);
  if ('error' in found) return reject(found.error);
  const { deposit } = found;
  if (deposit.status === 'FAILED') return alreadyDone;
  if (deposit.status !== 'PENDING' && deposit.status !== 'CONFIRMED') return invalidState(deposit, 'fail');
  return accept({ type: 'DepositFailed', data: { depositId: deposit.id, reason: data.reason, ...ctx.times } });
};

/**
 * An admin's decision on a deposit that completed held: released to the player (house:deposits-held -> user) or returned
 * to its payer (house:deposits-held -> house:deposits-returned). A release is the admin's explicit decision, so the
 * deposit limit is not checked again. Idempotent on the deposit id: the same decision again is a no-op whatever its
 * reason, the other decision is refused.
 */
const settleHeld = (ctx: DecideContext, data: ReleaseDeposit['data'], settlement: HeldDepositSettlement, action: string): Decision => {
  const found = findDeposit(ctx, data.depositId);
  if ('error' in found) return reject(found.error);
  const { deposit } = found;
  if (deposit.settlement === settlement) return alreadyDone;
  if (deposit.settlement) return reject({ _tag: 'DepositAlreadySettled', depositId: deposit.id, settlement: deposit.settlement, action });
  if (deposit.status !== 'COMPLETE' || deposit.held !== true) {
    return reject({ _tag: 'DepositNotHeld', depositId: deposit.id, status: deposit.status, action });
  }
  const released = settlement === 'RELEASED';
  const to = released ? ctx.user : 'house:deposits-returned';
  const postings = transfer('house:deposits-held', to, deposit.currencyId, deposit.amount);
  const settled = {
    ...movement(ctx, deposit.currencyId, `${released ? 'dpr' : 'dpx'}_${deposit.id}`, postings),
    depositId: deposit.id,
    adminUserId: data.adminUserId,
    reason: data.reason,
    ...amountsOf(deposit),
    ...ctx.times,
  };
  return accept(released ? { type: 'DepositReleased', data: settled } : { type: 'DepositReturned', data: settled });
};

/** A held deposit to the player's playable balance. */
export const releaseDeposit = (ctx: DecideContext, { data }: ReleaseDeposit): Decision => settleHeld(ctx, data, 'RELEASED', 'release');

/** A held deposit back to its payer: it leaves the house's books onto house:deposits-returned. */
export const returnDeposit = (ctx: DecideContext, { data }: ReturnDeposit): Decision => settleHeld(ctx, data, 'RETURNED', 'return');
