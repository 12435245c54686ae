/**
 * A browser's part of an install, over real HTTP: GETs that follow redirects and keep cookies (per host and
 * port, as a browser does for the app and for Slack), and the page each ends on.
 */
export class BrowserClient {
  /** Cookies by origin, then name. */
  readonly cookies = new Map<string, Map<string, string>>();
  /** Every URL visited, in order (the redirects included). */
  readonly visited: string[] = [];

  async open(url: string): Promise<{ status: number; url: string; html: string }> {
    let current = url;
    for (let hop = 0; hop < 10; hop += 1) {
      this.visited.push(current);
      const origin = new URL(current).origin;
      const jar = this.cookies.get(origin) ?? new Map<string, string>();
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
      const response = await fetch(current, { redirect: 'manual', headers: cookie ? { cookie } : {} });
      for (const line of response.headers.getSetCookie()) {
        const [pair = '', ...attributes] = line.split(';');
        const [name = '', value = ''] = pair.trim().split('=');
        const expired = attributes.some((a) => /^\s*expires=thu, 01 jan 1970/i.test(a));
        if (expired) jar.delete(name);
        else jar.set(name, value);
      }
      this.cookies.set(origin, jar);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.arrayBuffer();
        current = new URL(location, current).toString();
        continue;
      }
      return { status: response.status, url: current, html: await response.text() };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /** The href of the first link on a page whose text is `text`. */
  static link(html: string, text: string): string {
    const found = new RegExp(`<a [^>]*href="([^"]+)"[^>]*>${text}</a>`).exec(html)?.[1];
    if (!found) throw new Error(`no link "${text}" on the page:\n${html}`);
    return found.replace(/&#38;/g, '&');
  }
}
