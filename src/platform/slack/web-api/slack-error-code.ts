/** The error code of a Web API call Slack answered with ok:false (e.g. `not_in_channel`), if it was one. */
export function slackErrorCode(error: unknown): string | undefined {
  const code = (error as { data?: { error?: unknown } } | undefined)?.data?.error;
  return typeof code === 'string' ? code : undefined;
}
