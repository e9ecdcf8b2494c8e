// The domain's own lists (pure modules, bundled as they are), so the console never drifts from what the API accepts.
export { PERMISSIONS } from '../../src/domain/user/permissions';
export { CURRENCY_IDS as ALL_CURRENCIES, REQUEST_CURRENCY_IDS as CURRENCIES } from '../../src/domain/money/currency';

export const choices = (ids: readonly string[]) => ids.map((id) => ({ id, name: id }));
