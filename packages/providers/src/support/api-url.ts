import { Type } from '@sinclair/typebox';

/** The optional setting of a provider's API host (a fake or an egress proxy in tests and local stacks): scheme and host, no path. */
export function apiUrlSetting(description: string) {
  return Type.Optional(Type.String({ pattern: '^https?://[^/?#\\s]+/?$', description }));
}

/** An API host from its setting, else the mode's default, without a trailing slash (paths are appended to it). */
export function apiUrlOf(setting: string | undefined, fallback: string): string {
  return (setting ?? fallback).replace(/\/+$/, '');
}
