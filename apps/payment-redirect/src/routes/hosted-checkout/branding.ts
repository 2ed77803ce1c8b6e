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
// The WooCommerce plugin's "theme colour": a colour picker's #rrggbb, or its six digits alone.
const THEME_COLOUR = /^#?[0-9a-f]{6}$|^#[0-9a-f]{3}$/i;
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
  let themeColour: string | undefined;
  if (theme !== undefined) {
    const normalized = theme.trim().toLowerCase();
    if (normalized === 'light' || normalized === 'dark') branding.theme = normalized;
    else if (THEME_COLOUR.test(normalized)) themeColour = expandHex(normalized.startsWith('#') ? normalized : `#${normalized}`);
    else ignored.push('theme');
  }
  for (const param of ['background', 'button'] as const) {
    const colour = text(param);
    if (colour === undefined) continue;
    const trimmed = colour.trim();
    if (HEX_COLOUR.test(trimmed)) branding[param] = expandHex(trimmed);
    else ignored.push(param);
  }
  // A colour for a theme is the shop's accent: the buttons, links and the current step; `button`, when given too, is more precise.
  if (themeColour !== undefined && branding.button === undefined) branding.button = themeColour;
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

type Rgb = [red: number, green: number, blue: number];

const rgbOf = (colour: string): Rgb => [1, 3, 5].map((offset) => Number.parseInt(colour.slice(offset, offset + 2), 16)) as Rgb;
const hexOf = (rgb: Rgb) => `#${rgb.map((value) => Math.round(value).toString(16).padStart(2, '0')).join('')}`;

/** WCAG 2 relative luminance. */
function luminanceOf(colour: string): number {
  const [red, green, blue] = rgbOf(colour).map((value) => {
    const channel = value / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * red + 0.7152 * green + 0.0722 * blue;
}

/** WCAG 2 contrast ratio of two colours, from 1 to 21. */
export function contrastRatio(first: string, second: string): number {
  const [lighter, darker] = [luminanceOf(first), luminanceOf(second)].sort((a, b) => b - a) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/** The text colour that reads best on `background` (WCAG relative luminance): near-black or white. */
export function readableInk(background: string): string {
  return contrastRatio(background, '#ffffff') >= contrastRatio(background, '#000000') ? '#ffffff' : '#111827';
}

/** pages.css's `--card` of each theme: what the accent is read on (links, the "more providers" summary). */
export const CARD_COLOURS: Record<Theme, string> = { light: '#ffffff', dark: '#17202b' };
/** WCAG 2's AA contrast for text: the accent colours links and short labels, not only the buttons it fills. */
export const ACCENT_MIN_CONTRAST = 4.5;

/**
 * The shop's accent made legible on the theme's card: a colour with less than ACCENT_MIN_CONTRAST
 * against it (a light yellow on white) is mixed toward black on a light card, toward white on a dark
 * one, a twentieth at a time, until it has it. Its hue is kept; black and white always have it.
 */
export function legibleAccent(colour: string, theme: Theme): string {
  const card = CARD_COLOURS[theme];
  const toward = theme === 'light' ? 0 : 255;
  const rgb = rgbOf(colour);
  for (let step = 0; step <= 20; step += 1) {
    const mixed = hexOf(rgb.map((value) => value + ((toward - value) * step) / 20) as Rgb);
    if (contrastRatio(mixed, card) >= ACCENT_MIN_CONTRAST) return mixed;
  }
  return hexOf([toward, toward, toward]);
}

/** CSS custom properties for the page's `style` attribute; built from validated hex colours only. */
export function brandingStyle(branding: Branding): string | undefined {
  const declarations: string[] = [];
  if (branding.background) declarations.push(`--bg:${branding.background}`, `--page-ink:${readableInk(branding.background)}`);
  if (branding.button) {
    const accent = legibleAccent(branding.button, branding.theme);
    declarations.push(`--accent:${accent}`, `--accent-ink:${readableInk(accent)}`);
  }
  return declarations.length > 0 ? declarations.join(';') : undefined;
}
