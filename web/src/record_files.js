// Record files between the page and the user's disk: reading a chosen file as text (capped in
// size and required to be UTF-8, before any parsing) and offering a text as a download. No
// network: the download is a blob URL of this page.

import { MAX_RECORD_BYTES, RecordError } from './records.js';

/** The text of a File from an <input type=file>; RecordError when too big or not UTF-8. */
export async function readFileText(file) {
  if (file.size > MAX_RECORD_BYTES) throw new RecordError('record.tooBig', { max: MAX_RECORD_BYTES / 2 ** 20 });
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    throw new RecordError('record.notText');
  }
}

/** Saves `text` as a file called `name` through the browser's download. */
export function downloadText(name, text, type) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000); // after the download has started
}
