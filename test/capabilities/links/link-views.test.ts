import { describe, expect, it } from 'vitest';
import { linkCreatedMessage, linkCreatedView, linkFailedMessage } from '../../../src/capabilities/links/link-views.js';
import { messageProblems } from '../../kit/block-kit-limits.js';

const request = { nftId: 'nft <!channel> &', walletOptions: 'CUSTODIAL' as const };
/** No raw `<` or `>` (no mention, no link of the service's making), and every `&` an entity. */
const escaped = (text: string) => !/[<>]/.test(text) && !/&(?!(?:amp|lt|gt);)/.test(text);

describe('link results', () => {
  it('escapes the NFT ID and the reason in the notification text as in the blocks', () => {
    const failed = linkFailedMessage(request, 'The Mint service rejected the request (HTTP 400). It said: “<!here>”');
    expect(failed.text).toBe(
      'Could not create the mint link for NFT nft &lt;!channel&gt; &amp;. The Mint service rejected the request (HTTP 400). It said: “&lt;!here&gt;”',
    );
    expect(escaped(JSON.stringify(failed.blocks))).toBe(true);
  });

  it('links the URL the service gave, without a label of its choosing, and escapes the text', () => {
    const created = linkCreatedMessage(request, { url: 'https://mint.example/l/1?a=1&b=<x>|Click_me' });
    expect(created.text).toBe(
      'Mint link created for NFT nft &lt;!channel&gt; &amp;: https://mint.example/l/1?a=1&amp;b=&lt;x&gt;%7CClick_me',
    );
    const link = JSON.stringify(created.blocks);
    expect(link).toContain('*Link:* <https://mint.example/l/1?a=1&amp;b=&lt;x&gt;%7CClick_me>');
    expect(link).not.toContain('|Click');
    expect(messageProblems(created)).toEqual([]);
  });

  it('keeps the URL inside its code block whatever it holds', () => {
    const created = linkCreatedMessage(request, { url: 'https://mint.example/```*x*```' });
    expect(JSON.stringify(created.blocks)).toContain('```https://mint.example/%60%60%60*x*%60%60%60```');
  });

  it('shows each customer ID in full, in the modal and the DM alike', () => {
    const ids = ['cust-alpha', 'cust-beta', 'cust-gamma'];
    const created = linkCreatedMessage({ ...request, customerId: ids }, { url: 'https://mint.example/l/2' });
    expect(JSON.stringify(created.blocks)).toContain('*Customer IDs* (3): `cust-alpha`, `cust-beta`, `cust-gamma`');
    expect(
      JSON.stringify(linkCreatedView({ ...request, customerId: ids }, { url: 'https://mint.example/l/2' })),
    ).toContain('*Customer IDs* (3): `cust-alpha`, `cust-beta`, `cust-gamma`');
  });
});
