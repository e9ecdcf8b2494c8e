/** A shadow builds these too and the projector groups them, or old events would be replayed against today's rows. */
export const PROJECTION_READS: Readonly<Record<string, readonly string[]>> = {
  'affiliate-commission': ['users', 'sign-up-effects'],
};

/** Groups connected by PROJECTION_READS must advance together. */
export const readGroups = <P extends { name: string }>(all: readonly P[]): P[][] => {
  const root = new Map<string, string>(all.map((p) => [p.name, p.name]));
  const find = (n: string): string => {
    let r = n;
    while (root.get(r) !== r) r = root.get(r)!;
    return r;
  };
  for (const [name, reads] of Object.entries(PROJECTION_READS)) {
    for (const d of reads) if (root.has(name) && root.has(d)) root.set(find(d), find(name));
  }
  const groups = new Map<string, P[]>();
  for (const p of all) {
    const r = find(p.name);
    groups.set(r, [...(groups.get(r) ?? []), p]);
  }
  return [...groups.values()];
};
