import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** Bytes read at a time into the one buffer this source reuses. */
const CHUNK_BYTES = 64 * 1024;

/**
 * A UTF-8 text file as an upload source (`{ stream, length }` of src/platform/slack/web-api/upload-file.ts) whose chunks are
 * strings. A file read stream hands out a new Buffer for each chunk, memory outside V8's heap that only a
 * collection gives back, and little else is allocated during an upload to cause one: a 20 MB export would
 * leave 20 MB of spent chunks in the process for a while. Here the file is read into one reused buffer and
 * each chunk is decoded into a string, an ordinary heap object that the young generation's collections
 * reclaim as the upload goes (the socket writes strings as they are). `length` is the file's size in bytes.
 */
export function textFileSource(path: string): { stream: Readable; length: number } {
  const fd = openSync(path, 'r');
  const length = fstatSync(fd).size;
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const decoder = new StringDecoder('utf8');
  let closed = false;
  const close = () => {
    if (!closed) closeSync(fd);
    closed = true;
  };
  const stream = new Readable({
    encoding: 'utf8',
    read() {
      try {
        const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
        if (read === 0) {
          const rest = decoder.end();
          if (rest) this.push(rest, 'utf8');
          close();
          this.push(null);
          return;
        }
        this.push(decoder.write(buffer.subarray(0, read)), 'utf8');
      } catch (error) {
        close();
        this.destroy(error instanceof Error ? error : new Error(String(error)));
      }
    },
    destroy(error, callback) {
      close();
      callback(error);
    },
  });
  return { stream, length };
}
