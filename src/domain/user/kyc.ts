/** The KYC levels a player can be verified to; LEVEL_0 is nobody verified (a player with no record). */
export const KYC_LEVELS = ['LEVEL_0', 'LEVEL_1', 'LEVEL_2', 'LEVEL_3', 'LEVEL_4'] as const;
export type KycLevel = (typeof KYC_LEVELS)[number];

/**
 * What the ledger keeps of a player's KYC: the level reached and whether a verification is under way. The identity
 * documents and the personal details they prove stay with the KYC provider (docs/compliance.md).
 */
export type Kyc = Readonly<{ level: KycLevel; verificationPending: boolean; createdAt: string; updatedAt: string }>;

/** LEVEL_n -> n; no record -> 0. */
export const kycLevelNumber = (kyc: Pick<Kyc, 'level'> | null | undefined): number => (kyc ? KYC_LEVELS.indexOf(kyc.level) : 0);
