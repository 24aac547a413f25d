import Link from "next/link"

export default async function IndexPage() {
  return <Link href="/blog">Blog</Link>
}
