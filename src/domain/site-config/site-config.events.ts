import type { ConfigCode } from './site-config.sections.js';

/** A back-office section of the site configuration was replaced, by whom and when. Stream `config-<code>`. */
export type SiteConfigChanged = Readonly<{
  type: 'SiteConfigChanged';
  data: Readonly<{
    code: ConfigCode;
    config: Readonly<Record<string, unknown>>;
    request: Readonly<Record<string, unknown>>;
    adminUserId: number;
    at: string;
  }>;
}>;

export const configStream = (code: ConfigCode): string => `config-${code}`;

export const changeSiteConfig = (command: SiteConfigChanged['data']): SiteConfigChanged => ({ type: 'SiteConfigChanged', data: command });
