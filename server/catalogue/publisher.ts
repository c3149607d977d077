/**
 * Who a dataset is listed under: its publisher, else its holder. One rule for the catalogue's
 * list and publisher facet (the loader of app/routes/catalogue fills `publisher` with it before
 * filtering) and the data holder's home card "Datasets you publish" (server/overview/list-signals.ts).
 */
export function publisherOf(d: { publisher?: string; holder?: string }): string {
  return d.publisher || d.holder || "Unknown publisher";
}
