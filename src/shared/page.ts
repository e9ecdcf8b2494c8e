export type PageRequest = Readonly<{ page: number; take: number }>;
export type Page<T> = Readonly<{ data: T[]; take: number; page: number; total: number; totalPages: number }>;

export const offsetOf = ({ page, take }: PageRequest): number => (page - 1) * take;

/** The spec's paginated response: data, take, page, total, totalPages. */
export const pageOf = <T>(data: T[], total: number, { page, take }: PageRequest): Page<T> => ({
  data,
  take,
  page,
  total,
  totalPages: Math.ceil(total / take),
});
