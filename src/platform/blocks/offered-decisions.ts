import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { DeletionRequest } from '../store/deletion-requests.js';

/** Who asks about which request, in which workspace. */
export interface DecisionAsked {
  teamId: string;
  userId: string;
  requestId: string;
}

/** A modal view that offered the decision, as Slack handed it back with the click: enough to show it again. */
export interface OfferingView {
  id: string;
  /** The version clicked (views.update's hash): a view changed since is left as it is. */
  hash?: string;
  callbackId: string;
  privateMetadata: string;
}

/** A view to show again, as `userId` in `teamId` may now see it, with the client of the request that decided. */
export interface ShowAgain {
  client: WebClient;
  teamId: string;
  userId: string;
  view: OfferingView;
}

/** Where a request stands, in the deciding capability's words (`toRequester`: said to the person who asked). */
export type Standing = (request: DeletionRequest, toRequester: boolean) => string;

/**
 * A decision on a request offered on another capability's view (History's Details offers a deletion request's
 * Approve / Reject) without either capability importing the other. The one that decides provides its blocks
 * for a person and a request, and its words for where a request stands; the one that shows the view asks for
 * them while building it, and says, by its view's callback_id, how the view is shown again once a decision made
 * from it has landed or was refused.
 */
export class OfferedDecisions {
  private offer: ((at: DecisionAsked) => Promise<KnownBlock[]>) | undefined;
  private standing: Standing | undefined;
  /** By view callback_id: one entry per view that offers decisions, set at start, so it never grows. */
  private readonly showers = new Map<string, (at: ShowAgain) => Promise<void>>();

  /**
   * The deciding capability: the blocks `at.userId` may press on the request now (none when they may not), and
   * the line on where a request stands that its own messages show.
   */
  provide(offer: (at: DecisionAsked) => Promise<KnownBlock[]>, standing: Standing): void {
    this.offer = offer;
    this.standing = standing;
  }

  /** Where the request stands, as the deciding capability's messages say it (its status when nobody provides them). */
  standingOf(request: DeletionRequest, toRequester: boolean): string {
    return this.standing ? this.standing(request, toRequester) : request.status;
  }

  /** The blocks to put on a view for this person and request: none when nobody provides them, or they may not decide. */
  async blocksFor(at: DecisionAsked): Promise<KnownBlock[]> {
    return this.offer ? this.offer(at) : [];
  }

  /** The showing capability: how its views of `callbackId` are shown again (it checks the person's rights afresh). */
  showAgainWith(callbackId: string, showAgain: (at: ShowAgain) => Promise<void>): void {
    this.showers.set(callbackId, showAgain);
  }

  /** Shows a view that offered a decision again, by whoever made it; a view nobody registered is left alone. */
  async showAgain(at: ShowAgain): Promise<void> {
    await this.showers.get(at.view.callbackId)?.(at);
  }
}
