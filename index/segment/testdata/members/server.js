import { Request } from "./http";


/** Server answers requests. */
export class Server {
  #secret = "s";
  static count = 0;

  /** fetch handles one request. */
  fetch = async (req) => {
    return this.#route(req);
  };

  text = (body) =>
    new Response(body);

  #route(req) {
    return new Response(req.url);
  }

  get size() {
    return Server.count;
  }
}

export const api = {
  list() {
    return fetch("/items");
  },
  create: async (item) => fetch("/items", { method: "POST", body: item }),
  nested: {
    remove(id) {
      return id;
    },
  },
  base: "/api",
};

let retries = 3, backoff = 100;

export const handler = (x) => x * 2;

/** close ends the server. */
Server.prototype.close = function close() {
  return null;
};
api.extra = (x) => x;
