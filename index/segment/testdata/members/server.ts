import { Request } from "./http";

type TextRespond = (body: string) => Response;

/** Server answers requests. */
export class Server {
  #secret = "s";
  static count: number = 0;

  /** fetch handles one request. */
  fetch = async (req: Request): Promise<Response> => {
    return this.#route(req);
  };

  text: TextRespond = (body) =>
    new Response(body);

  #route(req: Request) {
    return new Response(req.url);
  }

  get size(): number {
    return Server.count;
  }
}

export const api = {
  list() {
    return fetch("/items");
  },
  create: async (item: string) => fetch("/items", { method: "POST", body: item }),
  nested: {
    remove(id: string) {
      return id;
    },
  },
  base: "/api",
};

let retries = 3, backoff = 100;

export enum Mode { Fast, Safe = "safe" }

export interface Props {
  title: string;
  onClick(): void;
}

export const handler = (x: number) => x * 2;

export class Store {
  constructor(private readonly repo: Repo, public name = "s", plain: number) {}
}

/** The route's handlers. */
export const { GET, POST: post, limit = 10, ...rest } = handlers();
let [first, , second = 2, [nested], ...others] = pairs();
