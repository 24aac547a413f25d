export default function BlogPost({ post }) {
  return <h1>{post.title}</h1>
}

export async function getStaticProps({ params }) {
  return { props: { post: { title: params.slug } } }
}
