import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { shortSecretRefusal } from '@gateway/domain';
import type { ProviderMode, ProviderModule } from './provider-contract';

/**
 * A provider's settings live in the environment as `PROVIDER_<ID>_<NAME>` (each also as
 * `..._FILE`, how container secrets are mounted), `<NAME>` after the provider's own term, plus
 * `PROVIDER_<ID>_MODE` (`live` or `test`). A provider with none of them set is not configured;
 * one that takes no credentials at all is configured by its MODE.
 */
export function providerEnvName(providerId: string, name: string): string {
  return `PROVIDER_${providerId.toUpperCase()}_${name}`;
}

const MODE = Type.Union([Type.Literal('live'), Type.Literal('test')], {
  description: "live, or test for the provider's sandbox host (where the provider's keys do not say it themselves)",
});

/**
 * The operator's explicit word that a production gateway may run providers in their test mode (a
 * staging deployment): without it, production refuses every provider whose credentials or MODE
 * select its sandbox, whose webhooks could otherwise mark real orders paid.
 */
export const ALLOW_PROVIDER_TEST_MODE = 'ALLOW_PROVIDER_TEST_MODE';

/**
 * A provider setting's schema option: in production its value must be at least this many
 * characters (a webhook key the operator chooses, or one the provider issues that long, so a
 * shorter one is a placeholder).
 */
export interface ProductionMinLength {
  productionMinLength?: number;
}

/**
 * A provider setting's schema option: in production it must be given with this value, the
 * operator's word that something outside the gateway is done (an option the provider enables on
 * the merchant account) without which the integration is not safe; its description says what.
 */
export interface ProductionValue {
  productionValue?: string;
}

/** Every provider setting as an optional string (plus each MODE, and ALLOW_PROVIDER_TEST_MODE), for an app's environment schema. */
export function providerEnvironmentSchema(modules: readonly ProviderModule[]): Record<string, TSchema> {
  const properties: Record<string, TSchema> = {
    [ALLOW_PROVIDER_TEST_MODE]: Type.Boolean({
      default: false,
      description:
        'true lets a production gateway run providers in their test mode (their sandbox hosts and test keys): a staging deployment ' +
        'that takes no real money; refused otherwise',
    }),
  };
  for (const { descriptor } of modules) {
    for (const [name, schema] of Object.entries(descriptor.settings.properties)) {
      const description = (schema as { description?: string }).description;
      properties[providerEnvName(descriptor.id, name)] = Type.Optional(
        Type.String({ description: `${descriptor.displayName}: ${description ?? name}` }),
      );
    }
    properties[providerEnvName(descriptor.id, 'MODE')] = Type.Optional(MODE);
  }
  return properties;
}

export interface ConfiguredProvider {
  module: ProviderModule;
  settings: Record<string, string>;
  requestedMode: ProviderMode | undefined;
}

export interface ProviderSettingsResult {
  configured: ConfiguredProvider[];
  /** Each names the variable to fix, never a value (they are secrets). */
  problems: string[];
}

/**
 * The providers with settings in `env`, each checked against its descriptor's schema, and in
 * production against each setting's `productionMinLength` and `productionValue`.
 */
export function readProviderSettings(
  modules: readonly ProviderModule[],
  env: Readonly<Record<string, unknown>>,
  { production = false }: { production?: boolean } = {},
): ProviderSettingsResult {
  const configured: ConfiguredProvider[] = [];
  const problems: string[] = [];
  for (const module of modules) {
    const { id, settings: schema } = module.descriptor;
    const settings: Record<string, string> = {};
    for (const name of Object.keys(schema.properties)) {
      const value = env[providerEnvName(id, name)];
      if (typeof value === 'string' && value !== '') settings[name] = value;
    }
    const mode = env[providerEnvName(id, 'MODE')];
    if (Object.keys(settings).length === 0) {
      // A provider that takes no credentials (Particle) is switched on by its MODE alone.
      const needsCredentials = (schema.required ?? []).length > 0;
      if (mode !== undefined && needsCredentials)
        problems.push(`${providerEnvName(id, 'MODE')}: set, but none of ${id}'s credentials are (${requiredNames(schema, id).join(', ')})`);
      if (mode === undefined || needsCredentials) continue;
    }
    const errors = [...Value.Errors(schema, settings)];
    for (const error of errors) {
      const name = error.path.replace(/^\//, '');
      const description = (error.schema as { description?: string }).description;
      problems.push(
        name === '' || !(name in schema.properties)
          ? `${id}: ${error.message}`
          : `${providerEnvName(id, name)}: ` +
              `${settings[name] === undefined ? 'required once any of its settings is given' : 'not in the form expected'}` +
              `${description ? ` (${description})` : ''}`,
      );
    }
    if (production) {
      for (const [name, value] of Object.entries(settings)) {
        const minimum = (schema.properties[name] as ProductionMinLength).productionMinLength;
        const refusal = minimum !== undefined && value.length < minimum ? shortSecretRefusal(value) : undefined;
        if (refusal !== undefined) problems.push(`${providerEnvName(id, name)}: ${refusal}`);
      }
      for (const [name, property] of Object.entries(schema.properties)) {
        const { productionValue, description } = property as ProductionValue & { description?: string };
        if (productionValue === undefined || settings[name] === productionValue) continue;
        problems.push(`${providerEnvName(id, name)}: must be ${productionValue} in production (${description ?? name})`);
      }
    }
    if (errors.length === 0) configured.push({ module, settings, requestedMode: mode === 'live' || mode === 'test' ? mode : undefined });
  }
  return { configured, problems: dedupe(problems) };
}

function requiredNames(schema: TObject, id: string): string[] {
  return (schema.required ?? Object.keys(schema.properties)).map((name) => providerEnvName(id, name));
}

function dedupe(problems: string[]): string[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = problem.split(':')[0]!;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
