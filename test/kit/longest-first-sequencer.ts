import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { runOrder } from './run-order.js';

/** `sequence.sequencer` of test/vitest.config.ts: vitest's own, with `runOrder` as the order. */
export class LongestFirstSequencer extends BaseSequencer {
  override sort(specs: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const facts = specs.map((spec) => {
      const path = relative(root, spec.moduleId);
      const lastRun = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      return {
        spec,
        project: spec.project.name,
        path,
        text: readFileSync(spec.moduleId, 'utf8'),
        lastDurationMs: lastRun?.duration,
      };
    });
    return Promise.resolve(runOrder(facts).map(({ spec }) => spec));
  }
}
