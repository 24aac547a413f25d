import { db } from "@/lib/db"

async function handler(req: Request) {
  return new Response(null, { status: 204 })
}

export { handler as PATCH, handler as DELETE }
