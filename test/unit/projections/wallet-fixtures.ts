import { randomUUID } from 'node:crypto';
import type { NewEvent, RecordedEvent } from '../../../src/infra/event-store/event-store.port.js';
import { transfer, userAccount, type HouseAccount, type Posting } from '../../../src/domain/ledger/posting.js';
import type { CurrencyId } from '../../../src/domain/money/currency.js';
import { fromMinor, toMinor, type DecimalString } from '../../../src/domain/money/money.js';
import { walletStream, type GameIdentity, type WalletEvent } from '../../../src/domain/wallet/wallet.events.js';

/** An event for a wallet stream, ready to append (integration) or to record (unit). */
export type Scripted = Readonly<{ streamId: string; event: NewEvent }>;

const d = (s: string): DecimalString => s as DecimalString;
export const GAME: GameIdentity = { name: 'Dice', slug: 'dice', type: 'original', provider: { name: 'House' } };

/**
 * Builds realistic wallet events the way the deciders would: correct postings, balanceAfter from a
 * running balance per user and currency, a clock that advances one second per event.
 */
export class WalletScript {
  private readonly balances = new Map<string, bigint>();
  /** Stakes of placed bets and amounts of requested withdrawals, repeated by BetSettled / WithdrawalCompleted as the deciders do. */
  private readonly bets = new Map<string, Readonly<{ amount: DecimalString; usdAmount: DecimalString; placedAt: string }>>();
  private readonly withdrawals = new Map<string, DecimalString>();
  private clock: number;
  private seq = 0;

  constructor(startIso = '2026-01-01T00:00:00.000Z') {
    this.clock = Date.parse(startIso);
  }

  balance(userId: number, currencyId: CurrencyId): DecimalString {
    return fromMinor(currencyId, this.balances.get(`${userId}/${currencyId}`) ?? 0n);
  }

  private emit(userId: number, e: WalletEvent): Scripted {
    return { streamId: walletStream(userId), event: { id: randomUUID(), type: e.type, data: e.data } };
  }

  private at(): string {
    this.clock += 1000;
    return new Date(this.clock).toISOString();
  }

  /** Moves `delta` (signed, to the user) between the user and a house account. */
  private move(userId: number, currencyId: CurrencyId, house: HouseAccount, delta: string) {
    const key = `${userId}/${currencyId}`;
    const minor = toMinor(currencyId, d(delta));
    const after = (this.balances.get(key) ?? 0n) + minor;
    if (after < 0n) throw new Error(`fixture would overdraw ${key}`);
    this.balances.set(key, after);
    const user = userAccount(userId);
    const postings: readonly Posting[] =
      minor === 0n ? [] : minor > 0n ? transfer(house, user, currencyId, minor) : transfer(user, house, currencyId, -minor);
    this.seq += 1;
    return {
      transactionId: `tx-${this.seq}-${randomUUID().slice(0, 8)}`,
      currencyId,
      postings,
      balanceAfter: fromMinor(currencyId, after),
    };
  }

  depositRequested(userId: number, depositId: string, currencyId: CurrencyId, amount: string, usdAmount: string): Scripted {
    return this.emit(userId, {
      type: 'DepositRequested',
      data: {
        depositId,
        externalId: `ext-${depositId}`,
        providerId: 'PROVIDER_A',
        networkId: 'BTC',
        currencyId,
        amount: d(amount),
        usdAmount: d(usdAmount),
        txHash: null,
        payAddress: 'addr-1',
        payMemo: null,
        at: this.at(),
      },
    });
  }
  depositConfirmed(userId: number, depositId: string, txHash: string | null = null): Scripted {
    return this.emit(userId, { type: 'DepositConfirmed', data: { depositId, txHash, at: this.at() } });
  }
  depositCompleted(userId: number, depositId: string, currencyId: CurrencyId, amount: string, usdAmount: string): Scripted {
    return this.emit(userId, {
      type: 'DepositCompleted',
      data: {
        ...this.move(userId, currencyId, 'house:deposits', amount),
        depositId,
        amount: d(amount),
        usdAmount: d(usdAmount),
        txHash: `0x${depositId}`,
        at: this.at(),
      },
    });
  }
  depositFailed(userId: number, depositId: string, reason = 'expired'): Scripted {
    return this.emit(userId, { type: 'DepositFailed', data: { depositId, reason, at: this.at() } });
  }

  betPlaced(userId: number, betId: string, currencyId: CurrencyId, amount: string, usdAmount: string) {
    const m = this.move(userId, currencyId, 'house:bets', `-${amount}`);
    const at = this.at();
    this.bets.set(betId, { amount: d(amount), usdAmount: d(usdAmount), placedAt: at });
    const s = this.emit(userId, {
      type: 'BetPlaced',
      data: {
        ...m,
        betId,
        roundId: `round-${betId}`,
        gameId: 7,
        gameIdentity: GAME,
        amount: d(amount),
        usdAmount: d(usdAmount),
        at,
      },
    });
    return Object.assign(s, { transactionId: m.transactionId });
  }
  betSettled(userId: number, betId: string, currencyId: CurrencyId, payout: string, usdPayout: string, multiplier: string): Scripted {
    const bet = this.bets.get(betId);
    if (!bet) throw new Error(`fixture settles unplaced bet ${betId}`);
    return this.emit(userId, {
      type: 'BetSettled',
      data: {
        ...this.move(userId, currencyId, 'house:payouts', payout),
        betId,
        ...bet,
        payout: d(payout),
        usdPayout: d(usdPayout),
        multiplier: d(multiplier),
        at: this.at(),
      },
    });
  }
  betRolledBack(userId: number, betId: string, currencyId: CurrencyId, amount: string, originalId: string): Scripted {
    return this.emit(userId, {
      type: 'BetRolledBack',
      data: {
        ...this.move(userId, currencyId, 'house:bets', amount),
        betId,
        amount: d(amount),
        originalId,
        at: this.at(),
      },
    });
  }
  betErrored(
    userId: number,
    betId: string,
    currencyId: CurrencyId,
    amount: string,
    originalId: string,
    errorDetails = 'game crashed',
  ): Scripted {
    return this.emit(userId, {
      type: 'BetErrored',
      data: {
        ...this.move(userId, currencyId, 'house:bets', amount),
        betId,
        amount: d(amount),
        originalId,
        errorDetails,
        at: this.at(),
      },
    });
  }

  withdrawalRequested(userId: number, withdrawalId: string, currencyId: CurrencyId, amount: string, usdAmount: string): Scripted {
    this.withdrawals.set(withdrawalId, d(usdAmount));
    return this.emit(userId, {
      type: 'WithdrawalRequested',
      data: {
        ...this.move(userId, currencyId, 'house:withdrawals-held', `-${amount}`),
        withdrawalId,
        operationKey: `op-${withdrawalId}`,
        amount: d(amount),
        usdAmount: d(usdAmount),
        networkId: 'BTC',
        providerId: 'PROVIDER_B',
        recipientAddress: 'bc1-dest',
        recipientMemo: null,
        at: this.at(),
      },
    });
  }
  withdrawalApproved(userId: number, withdrawalId: string, adminUserId = 1): Scripted {
    return this.emit(userId, { type: 'WithdrawalApproved', data: { withdrawalId, adminUserId, at: this.at() } });
  }
  withdrawalRetried(userId: number, withdrawalId: string, adminUserId = 1): Scripted {
    return this.emit(userId, { type: 'WithdrawalRetried', data: { withdrawalId, adminUserId, at: this.at() } });
  }
  withdrawalFailed(userId: number, withdrawalId: string, failedReason = 'provider down'): Scripted {
    return this.emit(userId, { type: 'WithdrawalFailed', data: { withdrawalId, failedReason, at: this.at() } });
  }
  withdrawalRejected(
    userId: number,
    withdrawalId: string,
    currencyId: CurrencyId,
    amount: string,
    rejectReason = 'kyc',
    adminUserId = 1,
  ): Scripted {
    return this.emit(userId, {
      type: 'WithdrawalRejected',
      data: {
        ...this.move(userId, currencyId, 'house:withdrawals-held', amount),
        withdrawalId,
        adminUserId,
        rejectReason,
        amount: d(amount),
        at: this.at(),
      },
    });
  }
  withdrawalCompleted(userId: number, withdrawalId: string, currencyId: CurrencyId, amount: string): Scripted {
    const m = this.move(userId, currencyId, 'house:withdrawals', '0');
    const postings = transfer('house:withdrawals-held', 'house:withdrawals', currencyId, toMinor(currencyId, d(amount)));
    const usdAmount = this.withdrawals.get(withdrawalId);
    if (usdAmount === undefined) throw new Error(`fixture completes unrequested withdrawal ${withdrawalId}`);
    return this.emit(userId, {
      type: 'WithdrawalCompleted',
      data: {
        ...m,
        postings,
        withdrawalId,
        txHash: `0xw${withdrawalId}`,
        amount: d(amount),
        usdAmount,
        at: this.at(),
      },
    });
  }

  tip(
    userId: number,
    tipId: number,
    kind: 'add' | 'deduct',
    currencyId: CurrencyId,
    amount: string,
    usdAmount: string,
    adminUserId = 1,
  ): Scripted {
    const common = {
      tipId,
      amount: d(amount),
      usdAmount: d(usdAmount),
      tag: 'TESTING' as const,
      notes: `tip ${tipId}`,
      adminUserId,
      operationKey: `tip-${tipId}`,
    };
    return kind === 'add'
      ? this.emit(userId, {
          type: 'AdminTipCredited',
          data: { ...this.move(userId, currencyId, 'house:admin-tips', amount), ...common, at: this.at() },
        })
      : this.emit(userId, {
          type: 'AdminTipDeducted',
          data: { ...this.move(userId, currencyId, 'house:admin-tips', `-${amount}`), ...common, at: this.at() },
        });
  }
  balanceSet(userId: number, currencyId: CurrencyId, balance: string, adminUserId = 1): Scripted {
    const previous = this.balances.get(`${userId}/${currencyId}`) ?? 0n;
    const delta = fromMinor(currencyId, toMinor(currencyId, d(balance)) - previous);
    return this.emit(userId, {
      type: 'BalanceSet',
      data: {
        ...this.move(userId, currencyId, 'house:adjustments', delta),
        previousBalance: fromMinor(currencyId, previous),
        balance: d(balance),
        adminUserId,
        operationKey: `set-${this.seq}`,
        at: this.at(),
      },
    });
  }
  prize(userId: number, leaderboardUserId: string, currencyId: CurrencyId, amount: string, usdAmount: string, adminUserId = 1): Scripted {
    return this.emit(userId, {
      type: 'LeaderboardPrizeCredited',
      data: {
        ...this.move(userId, currencyId, 'house:prizes', amount),
        leaderboardId: 'lb-1',
        leaderboardUserId,
        amount: d(amount),
        usdAmount: d(usdAmount),
        adminUserId,
        operationKey: `prize-${leaderboardUserId}`,
        at: this.at(),
      },
    });
  }
}

/** Unit tests: turns scripted events into RecordedEvents at increasing positions. */
export const recorded = (items: readonly Scripted[], firstPrepare = 1n): RecordedEvent[] => {
  const revisions = new Map<string, bigint>();
  return items.map((s, i) => {
    const revision = revisions.get(s.streamId) ?? 0n;
    revisions.set(s.streamId, revision + 1n);
    return {
      id: s.event.id,
      streamId: s.streamId,
      revision,
      position: { commit: 100n, prepare: firstPrepare + BigInt(i) },
      type: s.event.type,
      data: s.event.data,
      metadata: {},
      createdAt: new Date(0),
    };
  });
};
