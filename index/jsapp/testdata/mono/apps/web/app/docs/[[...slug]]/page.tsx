function DocPage({ params }) {
  return <div>{params.slug}</div>
}

export default DocPage
