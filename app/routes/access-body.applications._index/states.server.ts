/** the application's states in the server's order, for the filter (decision 0064: not in the page's script) */
export { APPLICATION } from "../../../server/access-body/machines";
