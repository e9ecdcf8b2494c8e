/** Every period close is one event of this stream, appended at its expected revision: closes go in order, once each. */
export const PERIODS_STREAM = 'ledger-periods';

/** A period of the ledger's calendar: a month `YYYY-MM` or a day `YYYY-MM-DD`, in the calendar's time zone. */
export type PeriodId = string;

export type PeriodClosed = Readonly<{
  type: 'PeriodClosed';
  data: Readonly<{
    periodId: PeriodId;
    /** The calendar the period is cut by (fixed once the first period is closed). */
    timeZone: string;
    unit: 'month' | 'day';
    /** Business-time bounds of the period: [start, end). */
    start: string;
    end: string;
    adminUserId: number;
    /** When the close was decided (recording time). */
    at: string;
  }>;
}>;

export type PeriodEvent = PeriodClosed;

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const DAY = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** Whether `id` names a period of `unit` (a real calendar day for days). */
export const isPeriodId = (id: string, unit: 'month' | 'day'): boolean => {
  if (unit === 'month') return MONTH.test(id);
  const m = DAY.exec(id);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCDate() === Number(m[3]);
};

/** The period after `id`: calendar arithmetic on the label, the same as SQL's ledger_next_period. */
export const nextPeriod = (id: PeriodId): PeriodId => {
  if (id.length === 7) {
    const [y, m] = id.split('-').map(Number) as [number, number];
    return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
  }
  const d = new Date(`${id}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
};
