import { db } from "@/lib/db"

export async function GET() {
  const posts = await db.post.findMany()
  return new Response(JSON.stringify(posts))
}

export async function POST(req: Request) {
  const json = await req.json()
  const post = await db.post.create({ data: json })
  return new Response(JSON.stringify(post))
}
