import { createContext, useContext } from "react";

/** The CSP nonce of this response (server render only; the browser never needs it after hydration). */
export const NonceContext = createContext<string | undefined>(undefined);
export const useNonce = () => useContext(NonceContext);
