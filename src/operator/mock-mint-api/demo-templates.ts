/** Seeded contracts: one with 123 templates (enough for several pages at every limit), one empty. */
export const DEMO_CONTRACT_ID = 'demo-contract';
export const EMPTY_CONTRACT_ID = 'empty-contract';
export const DEMO_TEMPLATE_COUNT = 123;

export interface MockTemplate extends Record<string, unknown> {
  id: string;
  name: string;
  description: string;
  imageUrl: string;
  createdAt: string;
}

const EDITIONS = ['Genesis', 'Aurora', 'Harbor', 'Summit', 'Meadow', 'Ember', 'Tidal'];

export function demoTemplates(count = DEMO_TEMPLATE_COUNT): MockTemplate[] {
  const base = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(3, '0');
    const edition = EDITIONS[i % EDITIONS.length] ?? 'Edition';
    return {
      id: `tmpl_${n}`,
      name: `${edition} Pass #${n}`,
      description: `Demo template ${n} of the ${edition} collection: a membership pass minted on demand.`,
      imageUrl: `https://placehold.co/256x256/png?text=${n}`,
      createdAt: new Date(base + i * 3_600_000).toISOString(),
    };
  });
}
