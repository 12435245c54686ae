// The baseline of `npm run bench`: the same Bolt version with a /mintlink handler that only acks.
import process from 'node:process';
import { App, LogLevel } from '@slack/bolt';

const app = new App({
  token: process.env.SLACK_BOT_TOKEN,
  signingSecret: process.env.SLACK_SIGNING_SECRET,
  port: Number(process.env.PORT),
  logLevel: LogLevel.WARN,
  clientOptions: { slackApiUrl: process.env.SLACK_API_URL },
});
app.command('/mintlink', async ({ ack }) => {
  await ack();
});
await app.start();
process.stdout.write('bare bolt app started\n');
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
