import { BooleanInput, SelectInput, type RaRecord } from 'react-admin';
import { api } from '../api';
import { choices } from '../permissions';
import { CommandForm } from '../ui';

/** The user record's `kyc` (null: no record, which the AML hold reads as LEVEL_0). */
export type KycRecord = Readonly<{ level?: unknown; verificationPending?: unknown }> | null | undefined;

const LEVELS = ['LEVEL_0', 'LEVEL_1', 'LEVEL_2', 'LEVEL_3', 'LEVEL_4'] as const;
const levelOf = (kyc: KycRecord): string => (typeof kyc?.level === 'string' ? kyc.level : 'LEVEL_0');
const pending = (kyc: KycRecord): string => (kyc?.verificationPending === true ? ', a verification pending' : '');

/** The level in plain words: "Not verified (level 0, nothing on record)", "Verified to level 2 of 4, a verification pending". */
export const kycInWords = (kyc: KycRecord): string => {
  const n = LEVELS.indexOf(levelOf(kyc) as (typeof LEVELS)[number]);
  if (!kyc) return 'Not verified (level 0, nothing on record)';
  return `${n <= 0 ? 'Not verified (level 0)' : `Verified to level ${n} of 4`}${pending(kyc)}`;
};

/** The short form for a list row: "LEVEL_0", "LEVEL_2 (pending)". */
export const kycShort = (kyc: KycRecord): string => `${levelOf(kyc)}${kyc?.verificationPending === true ? ' (pending)' : ''}`;

/** kyc.edit: the level the KYC provider verified, set after a confirmation (PUT /user/{id}/kyc, audited). */
export const KycForm = ({ user, settle }: { user: RaRecord; settle: () => void }) => {
  const kyc = user.kyc as KycRecord;
  return (
    <CommandForm
      title="KYC level"
      label="Set level"
      onDone={settle}
      defaultValues={{ level: levelOf(kyc), verificationPending: kyc?.verificationPending === true }}
      confirm={(v) =>
        `Set the KYC level of ${String(user.username)} to ${kycInWords({ level: v.level, verificationPending: v.verificationPending })}?`
      }
      submit={(v) => api('PUT', `/user/${String(user.id)}/kyc`, { level: v.level, verificationPending: v.verificationPending === true })}
    >
      <SelectInput source="level" label="Level" choices={choices(LEVELS)} />
      <BooleanInput source="verificationPending" label="Verification pending" />
    </CommandForm>
  );
};
