// The difficulty levels as the page uses them: levels.json (generated at build time from
// popucom/levels.py, the one source of truth) read into one shape, named in the page's
// language, and turned into the engine worker's search request. No level is defined here.

import { translate, STRINGS } from './i18n.js';

/** levels.json (a list, or {levels: [...]}) as [{name, rating, description, model, params,
 * temperature, temperaturePlies}], weakest first as the file lists them. */
export function readLevels(json) {
  const list = Array.isArray(json) ? json : json?.levels;
  if (!Array.isArray(list) || !list.length) throw new Error('levels.json holds no levels');
  return list.map(readLevel);
}

function readLevel(level) {
  const params = { ...(level.params ?? level.search_params ?? level.searchParams ?? {}) };
  if (level.visits !== undefined) params.visits = level.visits;
  return {
    name: String(level.name),
    rating: level.rating ?? null,
    description: level.description ?? '',
    model: level.model ?? level.model_url ?? level.modelUrl,
    params,
    temperature: level.temperature ?? 0,
    temperaturePlies: level.temperaturePlies ?? level.temperature_plies ?? 0,
  };
}

/** A level's name in `lang` (the English name itself where no text exists). */
export function levelTitle(level, lang) {
  const key = `level.${level.name}`;
  return key in STRINGS.en ? translate(lang, key) : level.name;
}

/** The Difficulty list's entry: the name and the rating (Elo, random = 0). */
export function levelEntry(level, lang) {
  const title = levelTitle(level, lang);
  return level.rating === null ? title : translate(lang, 'levelEntry', { level: title, rating: level.rating });
}

/** What the level plays like: levels.json's English text, the GUI's translation elsewhere. */
export function levelDescription(level, lang) {
  const key = `levelDesc.${level.name}`;
  if (lang === 'en' && level.description) return level.description;
  return STRINGS[lang]?.[key] ?? level.description;
}
