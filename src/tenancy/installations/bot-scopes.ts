/**
 * The bot scopes "Add to Slack" asks for: manifest.yml's `oauth_config.scopes.bot`, which a test keeps equal
 * (the running app does not read the manifest).
 */
export const BOT_SCOPES = [
  'commands',
  'chat:write',
  'usergroups:read',
  'users:read',
  'channels:read',
  'groups:read',
  'files:read',
  'files:write',
] as const;
