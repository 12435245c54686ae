import type { Context } from '@slack/bolt';
import type { OrgWorkspaces, Uninstall } from '../../../tenancy/workspaces/workspaces.js';
import type { HomeOpenedArgs, HomeOpenedRequest } from './requests.js';
import { type Routes, addRoute } from './routes.js';
import type { Settle, Tell } from './settle.js';

/** The events the app listens to, each with a listener of its own shape (not declared: no manifest entry names them). */
export interface EventListeners {
  homeOpened(listener: (request: HomeOpenedRequest) => Promise<void>): void;
  /**
   * The app was removed from a workspace (`app_uninstalled`) or its bot token revoked (`tokens_revoked` naming
   * the bot). Slack sends these without a token to authorize; nobody waits on the answer.
   */
  uninstalled(listener: (uninstall: Uninstall) => Promise<void>): void;
  /**
   * Workspaces of an Enterprise Grid organization left its org-wide installation (`team_access_revoked`, or
   * `app_uninstalled_team` naming this app and a workspace), or joined it (`team_access_granted`). The org's
   * installation stays, for its other workspaces.
   */
  orgWorkspaces(change: 'left' | 'joined', listener: (workspaces: OrgWorkspaces) => Promise<void>): void;
}

/** Routes each event to its listener by type; nobody waits on an event's answer, so failures are only logged. */
export function eventListeners(routes: Routes, settle: Settle): EventListeners {
  const nobodyToTell: Tell = () => Promise.resolve();
  return {
    uninstalled(listener) {
      const handle = (
        context: Context,
        eventTime: number | undefined,
        reason: Uninstall['reason'],
        botUserIds?: string[],
      ) =>
        settle(
          context,
          undefined, // about an installation, which it names itself
          nobodyToTell,
          () =>
            listener({
              teamId: context.teamId,
              enterpriseId: context.enterpriseId,
              isEnterpriseInstall: context.isEnterpriseInstall === true,
              reason,
              eventTime,
              ...(botUserIds ? { botUserIds } : {}),
            }),
        );
      addRoute(routes.events, 'app_uninstalled', ({ body, context }) =>
        handle(context, eventTimeOf(body), 'app_uninstalled'),
      );
      addRoute(routes.events, 'tokens_revoked', async ({ body, event, context }) => {
        if (event.type !== 'tokens_revoked') return;
        // User tokens alone (the app asks for none) leave the bot working: only a revoked bot token removes it.
        const bots = event.tokens.bot ?? [];
        if (bots.length > 0) await handle(context, eventTimeOf(body), 'tokens_revoked', bots);
      });
    },

    orgWorkspaces(change, listener) {
      const handle = (context: Context, workspaces: Omit<OrgWorkspaces, 'enterpriseId'>) =>
        settle(
          context,
          undefined, // the organization's own news of its workspaces
          nobodyToTell,
          () => listener({ enterpriseId: context.enterpriseId, ...workspaces }),
        );
      if (change === 'joined') {
        addRoute(routes.events, 'team_access_granted', async ({ body, event, context }) => {
          if (event.type !== 'team_access_granted') return;
          await handle(context, {
            teamIds: event.team_ids,
            reason: 'team_access_granted',
            eventTime: eventTimeOf(body),
          });
        });
        return;
      }
      addRoute(routes.events, 'team_access_revoked', async ({ body, event, context }) => {
        if (event.type !== 'team_access_revoked') return;
        await handle(context, { teamIds: event.team_ids, reason: 'team_access_revoked', eventTime: eventTimeOf(body) });
      });
      addRoute(routes.events, 'app_uninstalled_team', async ({ body, event, context }) => {
        // Sent to admin apps about any app: only this app's removal, from one workspace, is about us. Its removal
        // from the whole organization (the event naming the org itself) comes as app_uninstalled.
        if (event.type !== 'app_uninstalled_team') return;
        if (event.app_id !== body.api_app_id || event.team_id === context.enterpriseId) return;
        await handle(context, {
          teamIds: [event.team_id],
          reason: 'app_uninstalled_team',
          eventTime: eventTimeOf(body),
        });
      });
    },

    homeOpened(listener) {
      addRoute(routes.events, 'app_home_opened', async (eventArgs) => {
        if (!isHomeOpened(eventArgs)) return;
        const { next: _next, ...args } = eventArgs;
        // A failure is logged; the person opens Home again.
        const teamId = routes.workspaceOf(args.context, args.body);
        await settle(args.context, teamId, nobodyToTell, () => listener({ ...args, teamId }));
      });
    },
  };
}

function isHomeOpened(args: { event: { type: string } }): args is HomeOpenedArgs {
  return args.event.type === 'app_home_opened';
}

/** When Slack says an event happened (the envelope's `event_time`, in seconds), if it says. */
function eventTimeOf(body: { event_time?: unknown }): number | undefined {
  return typeof body.event_time === 'number' && Number.isFinite(body.event_time) ? body.event_time : undefined;
}
