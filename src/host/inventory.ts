/** What the policy declared a server would be, against what it reports. Pure. */
export interface InventoryDrift {
  expectedVersion?: string;
  actualVersion?: string;
  missingTools: string[];
  extraTools: string[];
}

export const compareInventory = (
  expect: { version?: string; tools?: string[] } | undefined,
  actualVersion: string | undefined,
  toolNames: string[],
): InventoryDrift | undefined => {
  if (!expect) return undefined;
  const versionDrift = expect.version !== undefined && expect.version !== actualVersion;
  const have = new Set(toolNames);
  const want = new Set(expect.tools ?? []);
  const missingTools = expect.tools ? [...want].filter((t) => !have.has(t)).sort() : [];
  const extraTools = expect.tools ? [...have].filter((t) => !want.has(t)).sort() : [];
  if (!versionDrift && missingTools.length === 0 && extraTools.length === 0) return undefined;
  return {
    ...(expect.version !== undefined ? { expectedVersion: expect.version } : {}),
    ...(actualVersion !== undefined ? { actualVersion } : {}),
    missingTools,
    extraTools,
  };
};

/** One line an agent or operator can act on, in the spirit of "expected 1.4.2 per policy; run ...". */
export const describeDrift = (server: string, d: InventoryDrift): string => {
  const parts: string[] = [];
  if (d.expectedVersion !== undefined && d.expectedVersion !== d.actualVersion)
    parts.push(`expected version ${d.expectedVersion} per policy, server reports ${d.actualVersion ?? 'none'}`);
  if (d.missingTools.length > 0) parts.push(`missing tools: ${d.missingTools.join(', ')}`);
  if (d.extraTools.length > 0) parts.push(`undeclared tools: ${d.extraTools.join(', ')}`);
  return `inventory drift in "${server}": ${parts.join('; ')}`;
};
