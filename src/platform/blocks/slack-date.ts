/**
 * A date Slack shows in each reader's own time zone (`<!date^...>`), with a UTC fallback for clients that
 * cannot (https://api.slack.com/reference/surfaces/formatting#date-formatting).
 */
export function slackDate(date: Date): string {
  const seconds = Math.floor(date.getTime() / 1000);
  const fallback = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${seconds}^{date_short_pretty} at {time}|${fallback}>`;
}
