// Loads packaging/integrations/openclaw with OpenClaw's own plugin loader (the pinned
// release's loadOpenClawPlugins) and calls the registered compaction provider's summarize().
// argv: LOADER_MODULE PLUGIN_DIR CASES_JSON_FILE; prints one JSON line per case:
// {"providers": [[id, owner]], "summary": S} or {"providers": ..., "error": M, "name": N}.
import fs from "node:fs";

const [loaderPath, pluginDir, casesFile] = process.argv.slice(2);
const { r: loadOpenClawPlugins } = await import(loaderPath);
const cases = JSON.parse(fs.readFileSync(casesFile, "utf8"));
for (const c of cases) {
  const config = { plugins: { allow: ["sessionlens"], load: { paths: [pluginDir] },
    entries: { sessionlens: { enabled: true, config: c.config } } } };
  const registry = await loadOpenClawPlugins({ config, onlyPluginIds: ["sessionlens"], cache: false });
  const providers = registry.compactionProviders.map((e) => [e.provider.id, e.ownerPluginId]);
  const entry = registry.compactionProviders.find((e) => e.provider.id === "sessionlens");
  const controller = new AbortController();
  if (c.abort) controller.abort();
  try {
    const summary = await entry.provider.summarize({
      messages: c.messages, signal: controller.signal, customInstructions: c.instructions,
      summarizationInstructions: { identifierPolicy: "strict" }, previousSummary: c.previous });
    console.log(JSON.stringify({ providers, summary }));
  } catch (err) {
    console.log(JSON.stringify({ providers, error: String(err?.message ?? err), name: err?.name }));
  }
}
