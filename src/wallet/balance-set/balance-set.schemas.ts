import { currencyId, DecimalString, withScales } from '../../http/money-fields.schemas.js';
import { z } from '../../http/validate.js';

/** PUT /user/{id}/balance: the balance to set; zero is allowed, more decimals than the currency has are not. */
export const SetBalanceBody = withScales(z.object({ balance: DecimalString, currencyId }), [
  { field: 'balance', scale: 'currency', positive: false },
]).openapi('SetBalanceBody');
export const BalanceUserParams = z.object({
  id: z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .positive('must be a positive integer')
    .max(Number.MAX_SAFE_INTEGER),
});
