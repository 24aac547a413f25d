import React from "react";

type Props = { title: string };

/** Renders a heading. */
export function Title({ title }: Props) {
  return <h1>{title}</h1>;
}

export const Badge = ({ title }: Props) => <span>{title}</span>;

export default class Panel extends React.Component<Props> {
  render() {
    return <div><Title title={this.props.title} /></div>;
  }
}
