// the small-count rule for the page's loader, kept out of the browser's bundle (a `.server` module)
export { forUser } from "../../../server/eehrxf/service";
