// The service worker (copied to the site's root as sw.js): makes the page work offline after
// the first visit. It caches every file manifest.json lists (the app shell, the wasm, the
// onnxruntime-web files and the models) in a cache named after the manifest's version, so a new
// build is a new cache.
//
// Navigations go to the network first (the cached page only offline). Each one also reads the
// manifest: when it names a build other than the one cached, the old cache is dropped before
// the page loads, so the page never mixes files of two builds, and the new build is cached in
// the background. Other requests are answered from the cache first, the network otherwise.
// Only this site's own URLs are ever cached or fetched.

const PREFIX = 'popucom-';
const SCOPE = new URL('./', self.location.href); // the site's root, wherever it is served
const SHELL = ['./', 'index.html'];

/** manifest.json's file paths to cache at install: all but those marked `precache: false`
 * (the weaker levels' networks, cached when first played). */
function manifestPaths(manifest) {
  const files = manifest?.files ?? manifest;
  const entries = Array.isArray(files) ? files : Object.keys(files ?? {});
  return entries
    .filter((entry) => entry?.precache !== false)
    .map((entry) => (typeof entry === 'string' ? entry : entry.path ?? entry.name ?? entry.url))
    .filter(Boolean);
}

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The newest manifest from the network: {text, paths, cacheName}. */
async function latestManifest() {
  const response = await fetch(new URL('manifest.json', SCOPE), { cache: 'no-store' });
  if (!response.ok) throw new Error(`manifest.json: HTTP ${response.status}`);
  const text = await response.text();
  const manifest = JSON.parse(text);
  const stamp = manifest.version ?? manifest.hash;
  const version = typeof stamp === 'string' ? stamp : (await sha256Hex(text)).slice(0, 16);
  return { text, paths: manifestPaths(manifest), cacheName: PREFIX + version };
}

/** Deletes every cache of this site but `keep`. */
async function dropCaches(keep = null) {
  for (const name of await caches.keys()) if (name.startsWith(PREFIX) && name !== keep) await caches.delete(name);
}

/** Caches the build `latest` names (unless complete already), then drops the others. It fills
 * a staging cache first, so a cache under the build's name is always complete. */
async function cacheBuild(latest) {
  const { text, paths, cacheName } = latest;
  if (!(await caches.has(cacheName))) {
    const stagingName = cacheName + '-partial';
    const staging = await caches.open(stagingName);
    const urls = [...new Set([...SHELL, ...paths])].map((path) => new URL(path, SCOPE).href);
    await staging.addAll(urls.filter((url) => !url.endsWith('/manifest.json')));
    await staging.put(new URL('manifest.json', SCOPE).href, new Response(text, { headers: { 'Content-Type': 'application/json' } }));
    const complete = await caches.open(cacheName);
    for (const request of await staging.keys()) await complete.put(request, await staging.match(request));
    await caches.delete(stagingName);
  }
  await dropCaches(cacheName);
}

self.addEventListener('install', (event) => {
  event.waitUntil(latestManifest().then(cacheBuild).catch(() => {}).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

async function navigate(event) {
  let response;
  try {
    response = await fetch(event.request);
  } catch (offline) {
    const cached = (await caches.match(event.request, { ignoreSearch: true })) ?? (await caches.match(new URL('index.html', SCOPE).href));
    if (cached) return cached;
    throw offline;
  }
  try {
    const latest = await latestManifest();
    if (!(await caches.has(latest.cacheName))) await dropCaches(latest.cacheName + '-partial'); // a new build
    event.waitUntil(cacheBuild(latest).catch(() => {}));
  } catch {
    // no manifest: the cached build (if any) stays as it is
  }
  return response;
}

/** The newest complete build's cache, if any (staging caches end in -partial). */
async function currentCache() {
  const names = (await caches.keys()).filter((name) => name.startsWith(PREFIX) && !name.endsWith('-partial'));
  return names.length ? caches.open(names[names.length - 1]) : null;
}

async function cacheFirst(request) {
  const cached = await caches.match(request, { ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(request);
  // A file not cached at install (a weaker level's network) is kept once fetched, for offline play.
  if (response.ok && response.status === 200) {
    const cache = await currentCache();
    if (cache) await cache.put(request, response.clone());
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || !request.url.startsWith(SCOPE.href)) return; // nothing of other origins
  event.respondWith(request.mode === 'navigate' ? navigate(event) : cacheFirst(request));
});
