import {
  type KyselyPlugin,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  type ValueNode,
} from 'kysely';
import type { Scrubber } from '../ops/telemetry/secret-scrubber.js';

/**
 * The database's choke point for secrets: every string value of every query passes the app's scrubber
 * before it is sent, whichever repository wrote it (an audit detail echoing the Mint API key, a reason
 * someone pasted a token into). Nothing else in the store has to remember to.
 */
export class ScrubSecretsPlugin implements KyselyPlugin {
  private readonly transformer: ScrubValues;

  constructor(scrub: Scrubber) {
    this.transformer = new ScrubValues(scrub);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(args.node);
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}

class ScrubValues extends OperationNodeTransformer {
  constructor(private readonly scrub: Scrubber) {
    super();
  }

  protected override transformValue(node: ValueNode): ValueNode {
    return typeof node.value === 'string' ? { ...node, value: this.scrub(node.value) } : node;
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    return { ...node, values: node.values.map((value) => (typeof value === 'string' ? this.scrub(value) : value)) };
  }
}
