import { MockMintService } from './mock-mint-service.js';
import { DEMO_CONTRACT_ID, EMPTY_CONTRACT_ID } from './demo-templates.js';

/*
 * `npm run mock-api`: a local Mint service to point the app at (MINT_API_BASE_URL=http://127.0.0.1:4010).
 * MOCK_PORT (4010), MOCK_API_KEY (dev-key), MOCK_LATENCY_MS (0), MOCK_TEMPLATE_SHAPE (wrapped|array).
 * Failures are switched on at run time: POST /__mock/behaviour {"fail": {"route": "create_link", "mode": "status", "status": 503}}.
 */
const port = Number(process.env.MOCK_PORT ?? 4010);
const shape = process.env.MOCK_TEMPLATE_SHAPE === 'array' ? 'array' : 'wrapped';
const service = new MockMintService({
  apiKey: process.env.MOCK_API_KEY ?? 'dev-key',
  latencyMs: Number(process.env.MOCK_LATENCY_MS ?? 0),
  templateShape: shape,
});
const url = await service.listen(port);
process.stdout.write(
  `Mock Mint service on ${url} (x-api-key: the value of MOCK_API_KEY, default "dev-key").\n` +
    `Seeded contracts: ${DEMO_CONTRACT_ID} (123 templates), ${EMPTY_CONTRACT_ID} (none). Template list shape: ${shape}.\n` +
    `Control: POST ${url}/__mock/behaviour {"latencyMs":1000} or {"fail":{"route":"create_link","mode":"status","status":503}}; ` +
    `GET ${url}/__mock/requests; POST ${url}/__mock/reset\n`,
);
const stop = () => void service.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
