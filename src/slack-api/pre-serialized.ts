/**
 * A view handed to the Slack SDK as the JSON text it sends anyway: the SDK form-encodes object arguments as
 * JSON, but first walks every one of them to build a debug log line (`redact`), even when debug logging is
 * off, and then stringifies them again. A string skips both; the bytes on the wire are the same. This was
 * about a seventh of the CPU of each modal open in `npm run bench`.
 */
export function preSerialized<T extends object>(view: T): T {
  return JSON.stringify(view) as unknown as T;
}
