using System;
using System.Collections.Generic;

namespace Shop.Orders
{
    /// <summary>An order line.</summary>
    public class Order
    {
        public int Id { get; set; }

        private readonly List<string> items = new List<string>();

        public Order(int id)
        {
            Id = id;
        }

        public void Add(string item)
        {
            items.Add(item);
        }
    }

    public interface IRepository
    {
        Order Find(int id);
    }

    public enum Status { Open, Closed }
}
