import type { RawQuery } from '../../services/hosted-checkout-service';

export type Theme = 'light' | 'dark';

/** The optional look a merchant asks for; what is not valid is dropped (and named in `ignored`). */
export interface Branding {
  shopName?: string;
  logoUrl?: string;
  /** The logo's origin, for the page's Content-Security-Policy img-src. */
  logoOrigin?: string;
  theme: Theme;
  background?: string;
  button?: string;
  /** Branding parameters that were given but refused (logged, never shown). */
  ignored: string[];
}

const MAX_SHOP_NAME = 60;
const MAX_LOGO_URL = 2048;
const HEX_COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const HOST_NAME = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

/** Optional branding: only what is certainly safe is kept; anything else is ignored. */
export function parseBranding(query: RawQuery): Branding {
  const ignored: string[] = [];
  const text = (param: string): string | undefined => {
    const value = query[param];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') {
      ignored.push(param);
      return undefined;
    }
    return value;
  };
  const branding: Branding = { theme: 'light', ignored };

  const domain = text('domain');
  if (domain !== undefined) {
    const name = shopName(domain);
    if (name) branding.shopName = name;
    else ignored.push('domain');
  }
  const logo = text('logo');
  if (logo !== undefined) {
    const url = httpsImageUrl(logo);
    if (url) {
      branding.logoUrl = url.href;
      branding.logoOrigin = url.origin;
    } else ignored.push('logo');
  }
  const theme = text('theme');
  if (theme !== undefined) {
    const normalized = theme.trim().toLowerCase();
    if (normalized === 'light' || normalized === 'dark') branding.theme = normalized;
    else ignored.push('theme');
  }
  for (const param of ['background', 'button'] as const) {
    const colour = text(param);
    if (colour === undefined) continue;
    const trimmed = colour.trim();
    if (HEX_COLOUR.test(trimmed)) branding[param] = expandHex(trimmed);
    else ignored.push(param);
  }
  return branding;
}

// Controls (C0, DEL, C1), zero-width characters and bidirectional overrides.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A merchant's name as plain text: control characters dropped, whitespace collapsed, length capped. */
function shopName(input: string): string | undefined {
  const cleaned = input.replace(UNPRINTABLE, ' ').replace(/\s+/g, ' ').trim();
  if (!cleaned) return undefined;
  const characters = [...cleaned];
  return characters.length > MAX_SHOP_NAME
    ? `${characters
        .slice(0, MAX_SHOP_NAME - 1)
        .join('')
        .trimEnd()}…`
    : cleaned;
}

/** An absolute https URL on a named host, with no credentials: anything else is never loaded. */
function httpsImageUrl(input: string): URL | undefined {
  const trimmed = input.trim();
  if (trimmed.length > MAX_LOGO_URL) return undefined;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username || url.password || !HOST_NAME.test(url.hostname) || !url.hostname.includes('.'))
    return undefined;
  return url;
}

function expandHex(colour: string): string {
  const hex = colour.slice(1).toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex}`;
}

/** The text colour that reads best on `background` (WCAG relative luminance): near-black or white. */
export function readableInk(background: string): string {
  const channel = (offset: number) => {
    const value = Number.parseInt(background.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  const contrastWithWhite = 1.05 / (luminance + 0.05);
  const contrastWithBlack = (luminance + 0.05) / 0.05;
  return contrastWithWhite >= contrastWithBlack ? '#ffffff' : '#111827';
}

/** CSS custom properties for the page's `style` attribute; built from validated hex colours only. */
export function brandingStyle(branding: Branding): string | undefined {
  const declarations: string[] = [];
  if (branding.background) declarations.push(`--bg:${branding.background}`, `--page-ink:${readableInk(branding.background)}`);
  if (branding.button) declarations.push(`--accent:${branding.button}`, `--accent-ink:${readableInk(branding.button)}`);
  return declarations.length > 0 ? declarations.join(';') : undefined;
}
