import { MockMintService } from './mock-mint-service.js';
import { DEMO_CONTRACT_ID, EMPTY_CONTRACT_ID } from './demo-templates.js';
import { fieldOf } from '../../platform/unknown-fields.js';

/*
 * `npm run mock-api`: a local Mint service to point the app at (MINT_API_BASE_URL=http://127.0.0.1:4010).
 * MOCK_PORT (4010), MOCK_API_KEY (dev-key; a comma list accepts several, one per workspace's Mint account in
 * distribution mode), MOCK_LATENCY_MS (0), MOCK_TEMPLATE_SHAPE (wrapped|array).
 * Failures are switched on at run time: POST /__mock/behaviour {"fail": {"route": "create_link", "mode": "status", "status": 503}}.
 */
const port = Number(process.env.MOCK_PORT || 4010);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`MOCK_PORT must be a port number (0 to 65535), not "${process.env.MOCK_PORT}".\n`);
  process.exit(1);
}
const shape = process.env.MOCK_TEMPLATE_SHAPE === 'array' ? 'array' : 'wrapped';
const [firstKey = 'dev-key', ...otherKeys] = (process.env.MOCK_API_KEY ?? 'dev-key')
  .split(',')
  .map((key) => key.trim())
  .filter(Boolean);
const service = new MockMintService({
  apiKey: firstKey,
  moreApiKeys: otherKeys,
  latencyMs: Number(process.env.MOCK_LATENCY_MS ?? 0),
  templateShape: shape,
});
const url = await service.listen(port).catch((error: unknown) => {
  const code = fieldOf(error, 'code');
  process.stderr.write(
    code === 'EADDRINUSE'
      ? `Port ${port} is in use (another mock service still running?). Stop it, or choose another port: MOCK_PORT=${port + 1} npm run mock-api (and MINT_API_BASE_URL=http://127.0.0.1:${port + 1} for the app).\n`
      : `The mock Mint service cannot listen on 127.0.0.1:${port}: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
process.stdout.write(
  `Mock Mint service on ${url} (x-api-key: the value of MOCK_API_KEY, or one of its comma list; default "dev-key").\n` +
    `Seeded contracts: ${DEMO_CONTRACT_ID} (123 templates), ${EMPTY_CONTRACT_ID} (none). Template list shape: ${shape}.\n` +
    `Control: POST ${url}/__mock/behaviour {"latencyMs":1000} or {"fail":{"route":"create_link","mode":"status","status":503}}; ` +
    `GET ${url}/__mock/requests; POST ${url}/__mock/reset\n`,
);
const stop = () => void service.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
