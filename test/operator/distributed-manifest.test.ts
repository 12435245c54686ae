import { existsSync, readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { distributedManifest, httpManifest } from '../../src/operator/http-manifest.js';

const sharedSchema = new URL('../../../shared/slack-manifest-schema/manifest.schema.1.0.0.json', import.meta.url);
const schemaFile = existsSync(sharedSchema)
  ? sharedSchema
  : new URL('./slack-manifest.schema.1.0.0.json', import.meta.url);
const validate = new Ajv({ strict: false, allErrors: true, logger: false }).compile(
  JSON.parse(readFileSync(schemaFile, 'utf8')) as object,
);
const manifestYaml = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');

const eventsUrl = 'https://mintlink.example.com/prefix/slack/events';
const forHttp = await httpManifest(manifestYaml, eventsUrl);
const manifest = parse(await distributedManifest(forHttp, eventsUrl)) as Record<string, any>;

describe('the distribution-mode manifest (--http URL --distributed)', () => {
  it("is valid against Slack's manifest schema", () => {
    expect(validate(manifest), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('adds the OAuth redirect URL beside /slack/events and turns token rotation on, the rest as for HTTP mode', () => {
    expect(manifest.oauth_config.redirect_urls).toEqual(['https://mintlink.example.com/prefix/slack/oauth_redirect']);
    expect(manifest.settings.token_rotation_enabled).toBe(true);
    const http = parse(forHttp) as Record<string, any>;
    expect({ ...manifest, oauth_config: { ...manifest.oauth_config, redirect_urls: undefined } }).toEqual({
      ...http,
      oauth_config: { ...http.oauth_config, redirect_urls: undefined },
      settings: { ...http.settings, token_rotation_enabled: true },
    });
  });
});
