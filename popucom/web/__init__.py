"""The browser app: `popucom web build` makes a static site of the page (web/), the C++ core
compiled to WebAssembly and the shipped networks; `popucom web` serves it (docs/web.md)."""
