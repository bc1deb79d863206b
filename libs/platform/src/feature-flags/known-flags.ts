/** Every flag the platform knows, with its built-in default. */
export const KNOWN_FEATURE_FLAGS = {
  'public-api.enabled': { defaultEnabled: false, description: 'Serve the public REST API at /api/v1' },
  'public-api.service-accounts': {
    defaultEnabled: false,
    description: 'Service-account administration and service-account API keys',
  },
} as const;

export type FeatureFlagKey = keyof typeof KNOWN_FEATURE_FLAGS;

export const FEATURE_FLAG_KEYS = Object.keys(KNOWN_FEATURE_FLAGS) as FeatureFlagKey[];

export function isKnownFeatureFlag(key: string): key is FeatureFlagKey {
  return Object.prototype.hasOwnProperty.call(KNOWN_FEATURE_FLAGS, key);
}
