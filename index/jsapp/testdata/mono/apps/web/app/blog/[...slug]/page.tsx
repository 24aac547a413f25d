export default function PostPage({ params }) {
  return <article>{params.slug.join("/")}</article>
}
